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
            if table.format == .relr {
                let count = table.relrAddressCount
                census.add(.relative, count)
                census.relrAddresses += count
                continue
            }
            table.forEachEntry { _, type, symbolIndex, _ in
                let kind = machine.relocationClass(type)
                census.add(kind)
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
    static func top(_ objects: [ClosureObject], program: ObjectCost, count: Int) -> [ObjectShare] {
        let total = objects.reduce(program.relocations.total) { $0 + ($1.cost?.relocations.total ?? 0) }
        let ranked = objects.compactMap { object -> ObjectShare? in
            guard let cost = object.cost else { return nil }
            return ObjectShare(path: object.path, soname: object.soname, relocations: cost.relocations.total,
                               relocationShare: total == 0 ? 0 : Double(cost.relocations.total) / Double(total),
                               lookups: cost.lookups, initializers: cost.initializers, exported: cost.exported)
        }.sorted { ($0.relocations, $1.path) > ($1.relocations, $0.path) }
        return Array(ranked.prefix(max(count, 0)))
    }
}
