#if canImport(Glibc)
import Glibc
#endif

/// premain's own environment, passed to the commands that `measure` and `trace` launch.
enum ProcessEnvironment {
    /// Every `NAME=value` of `environ`, in order; `[]` when the environment is empty.
    static func current() -> [String] {
        var result: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            result.append(String(cString: entry))
            cursor += 1
        }
        return result
    }
}
