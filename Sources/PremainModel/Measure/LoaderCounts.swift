/// Loader counts from `LD_DEBUG=statistics`. glibc's "number of relocations" counts symbol
/// look-ups (calls of `_dl_lookup_symbol_x`); "from cache" counts symbol relocations resolved
/// by the one-entry look-up cache instead. glibc's "cycles" are never read: they are TSC ticks,
/// stop before any initializer and are not wall-clock time.
public struct LoaderCounts: Codable, Equatable, Sendable {
    /// glibc's "number of relocations": symbol look-ups performed.
    public var symbolLookups: Int?
    /// glibc's "number of relocations from cache".
    public var relocationsFromCache: Int?
    /// glibc's "number of relative relocations" (not printed in the final block).
    public var relativeRelocations: Int?

    public init(symbolLookups: Int? = nil, relocationsFromCache: Int? = nil,
                relativeRelocations: Int? = nil) {
        self.symbolLookups = symbolLookups
        self.relocationsFromCache = relocationsFromCache
        self.relativeRelocations = relativeRelocations
    }
}
