import PremainModel

/// How `ClosureResolver` searches, as `ld.so` would for a program started without
/// `LD_PRELOAD`.
public struct ClosureOptions: Sendable, Equatable {
    /// The root the program runs under: paths from `DT_RPATH`, `DT_RUNPATH`, `PT_INTERP`,
    /// the cache and the default directories are read inside it. `nil` or `"/"` for this
    /// machine.
    public var sysroot: String?
    /// `LD_LIBRARY_PATH` directories, searched after `DT_RPATH` and before `DT_RUNPATH`;
    /// `[]` to search none (the default: the caller's environment is not the program's).
    public var libraryPath: [String]
    /// The cache file; `nil` for `<sysroot>/etc/ld.so.cache`.
    public var cachePath: String?
    /// Work out which `DT_NEEDED` entries provide no imported symbol.
    public var findUnused: Bool
    /// Count each object's relocations, initializers and exports.
    public var computeCosts: Bool
    /// How many heaviest objects `DependencyClosure.top` lists.
    public var topCount: Int

    public init(sysroot: String? = nil, libraryPath: [String] = [], cachePath: String? = nil,
                findUnused: Bool = true, computeCosts: Bool = true, topCount: Int = 5) {
        self.sysroot = sysroot
        self.libraryPath = libraryPath
        self.cachePath = cachePath
        self.findUnused = findUnused
        self.computeCosts = computeCosts
        self.topCount = topCount
    }

    /// The sysroot without trailing slashes; `""` for the real root.
    var root: String {
        guard var root = sysroot, !root.isEmpty else { return "" }
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        return root == "/" ? "" : root
    }
}
