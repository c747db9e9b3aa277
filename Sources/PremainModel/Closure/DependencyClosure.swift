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
