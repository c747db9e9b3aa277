/// How `ld.so` found an object of the closure (libtree's tags).
public enum FoundVia: String, Codable, Sendable, CaseIterable {
    /// `DT_RPATH` of the requesting object or one of its loaders, or of the executable.
    case rpath
    /// `DT_RUNPATH` of the requesting object.
    case runpath
    /// `LD_LIBRARY_PATH` (only when the user passed `--library-path` or `--honor-env`).
    case ldLibraryPath
    /// `/etc/ld.so.cache`.
    case ldSoCache
    /// The loader's default directories.
    case defaultPath
    /// A `DT_NEEDED` name with a slash: a path.
    case directPath
    /// `PT_INTERP`: mapped by the kernel, not searched.
    case interpreter
}
