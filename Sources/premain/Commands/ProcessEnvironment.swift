import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// premain's own environment: the variables passed to the commands that `measure` and `trace`
/// launch, and the current folder.
enum ProcessEnvironment {
    /// Every `NAME=value` of `environ`, in order; `[]` when the environment is empty.
    static func current() -> [String] {
        var result: [String] = []
        var cursor = environ
        while let entry = cursor.pointee {
            result.append(LosslessUTF8.string(cString: entry))
            cursor += 1
        }
        return result
    }

    /// The current folder; `nil` when `getcwd` fails (the folder was removed).
    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return LosslessUTF8.string(buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }
}
