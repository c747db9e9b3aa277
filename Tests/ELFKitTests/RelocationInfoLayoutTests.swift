import ELFKit
import Testing

/// `r_info` is not one layout: MIPS64's `Elf64_Mips_Rel` stores `r_sym` and then four type
/// bytes in file order, and SPARC V9 keeps data above its 8-bit type. Entries made in code.
@Suite struct RelocationInfoLayoutTests {
    /// One MIPS64 REL entry: r_offset 0x10, r_sym 5, r_ssym 0, r_type3 0, r_type2 R_MIPS_64 (18),
    /// r_type R_MIPS_REL32 (3), in the given byte order.
    static func mipsEntry(bigEndian: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        let offset: UInt64 = 0x10
        let symbol: UInt32 = 5
        withUnsafeBytes(of: bigEndian ? offset.bigEndian : offset.littleEndian) { bytes += $0 }
        withUnsafeBytes(of: bigEndian ? symbol.bigEndian : symbol.littleEndian) { bytes += $0 }
        bytes += [0, 0, 18, 3]
        return bytes
    }

    @Test(arguments: [false, true])
    func mips64EntriesDecodeTheirPrimaryTypeAndSymbol(bigEndian: Bool) {
        Self.mipsEntry(bigEndian: bigEndian).withUnsafeBytes { raw in
            let table = ELFRelocationTable(
                name: ".rel.dyn", format: .rel, offset: 0,
                data: ByteReader(raw, bigEndian: bigEndian), is64: true, machine: .mips)
            let entry = table[0]
            #expect(entry?.type == 3)
            #expect(entry?.symbolIndex == 5)
            #expect(entry?.offset == 0x10)
            let counts = table.classCounts()
            #expect(counts[.symbolic] == 1)  // R_MIPS_REL32 against a symbol
            #expect(counts.naming(.symbolic) == 1)
        }
    }

    @Test func mipsRel32AgainstSymbolZeroIsRelative() {
        #expect(ELFMachine.mips.relocationClass(3, symbolIndex: 0) == .relative)
        #expect(ELFMachine.mips.relocationClass(3, symbolIndex: 7) == .symbolic)
        #expect(ELFMachine.mips.relocationClass(127) == .plt)
    }

    /// SPARC V9 `ELF64_R_TYPE_ID`: R_SPARC_OLO10 (33) with data 0x123 above the type byte.
    @Test func sparcTypeIgnoresTheDataBits() {
        var bytes: [UInt8] = []
        let info: UInt64 = (9 << 32) | (0x123 << 8) | 33
        for word in [UInt64(0x20), info, 0] { withUnsafeBytes(of: word.bigEndian) { bytes += $0 } }
        bytes.withUnsafeBytes { raw in
            let table = ELFRelocationTable(
                name: ".rela.dyn", format: .rela, offset: 0,
                data: ByteReader(raw, bigEndian: true), is64: true, machine: .sparcv9)
            #expect(table[0]?.type == 33)
            #expect(table[0]?.symbolIndex == 9)
        }
        #expect(ELFMachine.sparcv9.relocationClass(21) == .plt)
        #expect(ELFMachine.sparcv9.relocationClass(22) == .relative)
        #expect(ELFMachine.loongarch.relocationClass(3) == .relative)
        #expect(ELFMachine.loongarch.relocationClass(5) == .plt)
    }
}
