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
