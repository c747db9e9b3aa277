#if canImport(Glibc)
import Glibc
#endif

/// A NULL-terminated array of C strings (argv, envp) owned until `free()`.
struct CStringList {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) {
        pointers = strings.map { strdup($0) } + [nil]
    }

    func free() {
        for pointer in pointers { Glibc.free(pointer) }
    }
}
