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
