import ELFKit

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

    /// Counts `file`'s costs in one pass over its relocation tables.
    public static func measure(_ file: ELFFile) -> ObjectCost {
        var census = RelocationCensus()
        var lookups = 0
        let bindNow = file.bindNow
        let machine = file.machine
        for table in file.dynamicRelocationTables {
            census.count(table, machine: machine) { kind, symbolIndex in
                guard symbolIndex != 0 else { return }
                switch kind {
                case .symbolic, .copy, .tls: lookups += 1
                case .plt: if bindNow { lookups += 1 }
                default: break
                }
            }
        }
        let exported = InventoryBuilder.symbolCensus(file, lists: false).exported
        return ObjectCost(relocations: census, initializers: initializerCount(file), exported: exported,
                          lookups: lookups, bindNow: bindNow)
    }

    /// Initializer entries from the dynamic tags' sizes, without reading the arrays.
    static func initializerCount(_ file: ELFFile) -> Int {
        let word = UInt64(file.wordSize)
        var count = 0
        if file.dynamicValue(.initFunction) != nil { count += 1 }
        for tag in [DynamicTag.initArraySize, .preinitArraySize] {
            if let size = file.dynamicValue(tag), size / word < UInt64(Int32.max) { count += Int(size / word) }
        }
        if let section = file.section(named: ".ctors"), let data = file.bytes(of: section) {
            let slots = data.count / file.wordSize
            let terminator: UInt64 = file.is64 ? .max : UInt64(UInt32.max)
            for slot in 0..<slots {
                guard let value = data.word(at: slot * file.wordSize, is64: file.is64) else { break }
                if value != 0 && value != terminator { count += 1 }
            }
        }
        return count
    }
}
