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

    public init(path: String, soname: String? = nil, relocations: Int, relocationShare: Double, lookups: Int, initializers: Int, exported: Int) {
        self.path = path
        self.soname = soname
        self.relocations = relocations
        self.relocationShare = relocationShare
        self.lookups = lookups
        self.initializers = initializers
        self.exported = exported
    }
}
