import Glibc
import PremainAudit
import PremainModel

/// NULL-terminated `char *[]` for `execve`, alive for the duration of a closure.
enum CStringArray {
    static func with<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
