import ELFKit
import PremainModel

extension ObjectCost {
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
