import PremainModel

/// What `InventoryBuilder` collects beyond the counts.
public struct InventoryOptions: Sendable, Equatable {
    /// Full lists of exported and imported symbol names.
    public var symbolLists: Bool
    /// Demangle initializer and Swift suspect names (costs time on huge files).
    public var demangle: Bool

    public init(symbolLists: Bool = false, demangle: Bool = true) {
        self.symbolLists = symbolLists
        self.demangle = demangle
    }
}
