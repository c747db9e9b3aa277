import ELFKit
import PremainModel

/// Counting ELF tables into the model's censuses.
extension RelocationCensus {
    public mutating func add(_ relocationClass: RelocationClass, _ count: Int = 1) {
        switch relocationClass {
        case .relative: relative += count
        case .symbolic: symbolic += count
        case .plt: plt += count
        case .copy: copy += count
        case .irelative: irelative += count
        case .tls: tls += count
        case .none: none += count; return
        }
        total += count
    }

    /// Adds `table`'s relocations by class, RELR addresses as `relative` (not the table itself
    /// to `tables`). `entry` sees the class and symbol index of each REL/RELA entry.
    mutating func count(_ table: ELFRelocationTable, machine: ELFMachine,
                        entry: (RelocationClass, UInt32) -> Void = { _, _ in }) {
        if table.format == .relr {
            let count = table.relrAddressCount
            add(.relative, count)
            relrAddresses += count
            return
        }
        table.forEachEntry { _, type, symbolIndex, _ in
            let kind = machine.relocationClass(type)
            add(kind)
            entry(kind, symbolIndex)
        }
    }

}

extension SymbolCensus.ByType {
    mutating func add(_ kind: ELFSymbol.Kind?) {
        switch kind {
        case .function: function += 1
        case .object, .common: object += 1
        case .tls: tls += 1
        case .gnuIFunc: ifunc += 1
        default: other += 1
        }
    }
}
