import ELFKit
import PremainModel

// ELF tables counted into the model's censuses: relocations by class, symbols by type, an
// object's start-up cost.

extension RelocationCensus {
    public mutating func add(_ relocationClass: RelocationClass, _ count: Int = 1) {
        switch relocationClass {
        case .relative: relative += count
        case .symbolic: symbolic += count
        case .plt: plt += count
        case .copy: copy += count
        case .irelative: irelative += count
        case .tls: tls += count
        case .none:
            none += count
            return
        }
        total += count
    }

    /// Adds `table`'s relocations by class, RELR addresses as `relative` (not the table itself
    /// to `tables`); returns the table's counts by class (RELR: none). `file`: the table's
    /// file, when its initializer entries will be read too (the same pass finds their
    /// relocations, `ELFFile.relocationClassCounts`).
    @discardableResult
    mutating func count(_ table: ELFRelocationTable, of file: ELFFile? = nil) -> RelocationClassCounts {
        if table.format == .relr {
            let count = table.relrAddressCount
            add(.relative, count)
            relrAddresses += count
            return RelocationClassCounts()
        }
        let counts = file?.relocationClassCounts(table) ?? table.classCounts()
        for relocationClass in RelocationClass.allCases where counts[relocationClass] > 0 {
            add(relocationClass, counts[relocationClass])
        }
        return counts
    }
}

extension SymbolCensus.ByType {
    mutating func add(_ kind: ELFSymbol.Kind?, count: Int = 1) {
        switch kind {
        case .function: function += count
        case .object, .common: object += count
        case .tls: tls += count
        case .gnuIFunc: ifunc += count
        default: other += count
        }
    }
}

extension ObjectCost {
    /// Counts `file`'s costs in one pass over its relocation tables.
    public static func measure(_ file: ELFFile) -> ObjectCost {
        var census = RelocationCensus()
        var counts = RelocationClassCounts()
        for table in file.dynamicRelocationTables {
            counts.add(census.count(table))
        }
        return ObjectCost(
            file, relocations: census, counts: counts,
            exported: InventoryBuilder.symbolCensus(file, lists: false).exported)
    }

    /// The cost of `file` from figures already counted: its relocations by class (`tables`
    /// are left out), the counts `RelocationCensus.count` returned, its exported symbols.
    init(_ file: ELFFile, relocations: RelocationCensus, counts: RelocationClassCounts, exported: Int) {
        var census = relocations
        census.tables = []
        let bindNow = file.bindNow
        let lookups =
            counts.naming(.symbolic) + counts.naming(.copy) + counts.naming(.tls)
            + (bindNow ? counts.naming(.plt) : 0)
        self.init(
            relocations: census, initializers: Self.initializerCount(file), exported: exported,
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
