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
