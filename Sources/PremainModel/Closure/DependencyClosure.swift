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

/// The static pre-main cost model of a whole closure: the program plus every object it loads.
public struct ClosureTotals: Codable, Sendable, Equatable {
    /// Objects in the closure (the program not counted; the interpreter counted).
    public var objects: Int
    /// Relocations by class, summed over the program and every object.
    public var relocations: RelocationCensus
    /// Static initializers, summed.
    public var initializers: Int
    /// Exported dynamic symbols, summed.
    public var exported: Int
    /// Symbol look-ups at start-up (see `ObjectCost.lookups`), summed.
    public var lookups: Int

    public init(program: ObjectCost, objects list: [ClosureObject]) {
        objects = list.count
        var relocations = program.relocations
        var initializers = program.initializers
        var exported = program.exported
        var lookups = program.lookups
        for object in list {
            guard let cost = object.cost else { continue }
            relocations.add(cost.relocations)
            initializers += cost.initializers
            exported += cost.exported
            lookups += cost.lookups
        }
        self.relocations = relocations
        self.initializers = initializers
        self.exported = exported
        self.lookups = lookups
    }
}

/// What one object costs the loader before `main`, counted from its tables.
public struct ObjectCost: Codable, Sendable, Equatable {
    /// Dynamic relocations by class (without the per-table list).
    public var relocations: RelocationCensus
    /// Static initializers the loader calls: `DT_PREINIT_ARRAY` and `DT_INIT_ARRAY` entries,
    /// `DT_INIT` as one, `.ctors` entries (without the 0 and -1 markers).
    public var initializers: Int
    /// Exported dynamic symbols (as `SymbolCensus.exported`).
    public var exported: Int
    /// Symbol look-ups the loader makes at start-up: every relocation naming a symbol
    /// (symbolic, copy, tls with a symbol), plus `JUMP_SLOT`s only when the object is bound
    /// immediately (`BIND_NOW`); lazily bound PLT slots are looked up on first call instead.
    /// Relocations naming a local symbol are counted too (rare in `.dynsym`).
    public var lookups: Int
    /// `BIND_NOW`: PLT slots are bound before `main`.
    public var bindNow: Bool

    public init(relocations: RelocationCensus, initializers: Int, exported: Int, lookups: Int, bindNow: Bool) {
        self.relocations = relocations
        self.initializers = initializers
        self.exported = exported
        self.lookups = lookups
        self.bindNow = bindNow
    }
}

/// One object's share of the closure's cost.
public struct ObjectShare: Codable, Sendable, Equatable {
    public var path: String
    public var soname: String?
    public var relocations: Int
    /// `relocations` over the closure's total (program included), 0...1.
    public var relocationShare: Double
    public var lookups: Int
    public var initializers: Int
    public var exported: Int

    /// The `count` objects with the most relocations, heaviest first (ties by path).
    public static func top(_ objects: [ClosureObject], program: ObjectCost, count: Int) -> [ObjectShare] {
        let total = objects.reduce(program.relocations.total) { $0 + ($1.cost?.relocations.total ?? 0) }
        let ranked = objects.compactMap { object -> ObjectShare? in
            guard let cost = object.cost else { return nil }
            return ObjectShare(path: object.path, soname: object.soname, relocations: cost.relocations.total,
                               relocationShare: total == 0 ? 0 : Double(cost.relocations.total) / Double(total),
                               lookups: cost.lookups, initializers: cost.initializers, exported: cost.exported)
        }.sorted { ($0.relocations, $1.path) > ($1.relocations, $0.path) }
        return Array(ranked.prefix(max(count, 0)))
    }

    public init(path: String, soname: String? = nil, relocations: Int, relocationShare: Double, lookups: Int,
                initializers: Int, exported: Int) {
        self.path = path
        self.soname = soname
        self.relocations = relocations
        self.relocationShare = relocationShare
        self.lookups = lookups
        self.initializers = initializers
        self.exported = exported
    }
}
