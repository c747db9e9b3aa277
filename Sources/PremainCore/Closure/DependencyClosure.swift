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

/// One object `ld.so` maps for a program, other than the program itself.
public struct ClosureObject: Codable, Sendable, Equatable {
    /// The path as `ld.so` builds it (search directory + name, `$ORIGIN` expanded, not
    /// canonicalized), inside the sysroot when one is given.
    public var path: String
    /// `path` with symlinks and `..` resolved.
    public var realPath: String
    public var soname: String?
    /// The `DT_NEEDED` name that loaded it first (the interpreter: its `PT_INTERP` path).
    public var requestedName: String
    public var foundVia: FoundVia
    /// The search-path directory it was found in; `nil` for direct paths and the interpreter.
    public var searchDirectory: String?
    /// 1 for the program's own `DT_NEEDED`, 2 for theirs, and so on (breadth-first: the
    /// shortest chain). The interpreter has depth 1.
    public var depth: Int
    /// Path of the object whose `DT_NEEDED` loaded it first (the program for the interpreter).
    public var neededBy: String
    /// Its own `DT_NEEDED` names (in memory only, see `CodingKeys`).
    public var needed: [String] = []
    /// Under the system library directories (`/lib`, `/usr/lib`, ...): folded in the text tree.
    public var system: Bool
    /// What this object costs at start-up; `nil` when costs were not computed.
    public var cost: ObjectCost?

    /// `cost` and `needed` are not written to JSON: every program that loads libc would repeat
    /// libc's figures and its `DT_NEEDED`. The closure's `totals` and `top` (`--top N` for more
    /// objects) carry the costs; each object's own audit carries its `needed`.
    enum CodingKeys: String, CodingKey {
        case path, realPath, soname, requestedName, foundVia, searchDirectory, depth, neededBy, system
    }

    public init(path: String, realPath: String, soname: String?, requestedName: String, foundVia: FoundVia,
                searchDirectory: String?, depth: Int, neededBy: String, needed: [String], system: Bool,
                cost: ObjectCost?) {
        self.path = path
        self.realPath = realPath
        self.soname = soname
        self.requestedName = requestedName
        self.foundVia = foundVia
        self.searchDirectory = searchDirectory
        self.depth = depth
        self.neededBy = neededBy
        self.needed = needed
        self.system = system
        self.cost = cost
    }
}

/// A `DT_NEEDED` name `ld.so` would not find.
public struct MissingLibrary: Codable, Sendable, Equatable {
    public var name: String
    /// Path of the object that needs it first.
    public var neededBy: String
    /// Every place looked in, in order: directories (each also with its hwcaps
    /// subdirectories), and `ld.so.cache` as the cache file's path.
    public var searched: [String]
    /// Candidates rejected because their ELF class or machine differs.
    public var wrongClass: [String]

    public init(name: String, neededBy: String, searched: [String], wrongClass: [String]) {
        self.name = name
        self.neededBy = neededBy
        self.searched = searched
        self.wrongClass = wrongClass
    }
}

/// The load closure of one program: every object `ld.so` would map for it, except the
/// program itself and the vDSO; the interpreter is included.
public struct DependencyClosure: Codable, Sendable, Equatable {
    /// Objects in load order (breadth-first).
    public var objects: [ClosureObject]
    public var missing: [MissingLibrary]
    public var totals: ClosureTotals?
    /// The heaviest objects, by their share of the closure's relocations, heaviest first.
    public var top: [ObjectShare]
    /// The program's own cost (not in `objects`), to which `totals` adds the objects' costs.
    public var program: ObjectCost?
    /// The program's `DT_NEEDED` entries that provide none of its imports (`ldd -u`).
    public var unusedNeeded: [String] = []

    public init(objects: [ClosureObject], missing: [MissingLibrary], totals: ClosureTotals? = nil,
                top: [ObjectShare] = [], program: ObjectCost? = nil) {
        self.objects = objects
        self.missing = missing
        self.totals = totals
        self.top = top
        self.program = program
    }
}
