import Testing

@testable import ELFKit

@Suite struct ByteReaderTests {
    @Test func readsBothByteOrdersAndRefusesToLeaveTheBuffer() {
        let bytes: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x41, 0x42, 0x00]
        bytes.withUnsafeBytes { raw in
            let little = ByteReader(raw, bigEndian: false)
            let big = ByteReader(raw, bigEndian: true)
            #expect(little.u16(at: 0) == 0x0201)
            #expect(big.u16(at: 0) == 0x0102)
            #expect(little.u32(at: 0) == 0x0403_0201)
            #expect(big.u64(at: 0) == 0x0102_0304_0506_0708)
            #expect(little.u64(at: 4) == nil)
            #expect(little.u32(at: -1) == nil)
            #expect(little.u8(at: 11) == nil)
            #expect(little.word(at: 0, is64: false) == 0x0403_0201)
            #expect(little.cString(at: 8) == "AB")
            #expect(little.cString(at: 10) == "")
            #expect(little.cString(at: 11) == nil)
            #expect(little.cString(at: Int.max) == nil)
        }
        // No terminating NUL inside the buffer: no string.
        [UInt8(0x41), 0x42].withUnsafeBytes { raw in
            #expect(ByteReader(raw, bigEndian: false).cString(at: 0) == nil)
        }
    }
}

@Suite struct RelrDecodingTests {
    /// RELR: an even word is an address; an odd word is a bitmap of the next 63 words.
    @Test func decodesAddressesAndBitmaps() {
        let words: [UInt64] = [0x1000, (0b1011 << 1) | 1, 0x2000, (1 << 63) | 1]
        var bytes: [UInt8] = []
        for word in words { withUnsafeBytes(of: word.littleEndian) { bytes += $0 } }
        bytes.withUnsafeBytes { raw in
            let table = ELFRelocationTable(
                name: ".relr.dyn", format: .relr, offset: 0,
                data: ByteReader(raw, bigEndian: false), is64: true)
            var addresses: [UInt64] = []
            table.forEachRelrAddress { addresses.append($0) }
            // 0x1000; bitmap bits 0,1,3 after 0x1008 → 0x1008, 0x1010, 0x1020; 0x2000; bit 62 → 0x2008 + 62*8.
            #expect(addresses == [0x1000, 0x1008, 0x1010, 0x1020, 0x2000, 0x2008 + 62 * 8])
            #expect(table.relrAddressCount == addresses.count)
            #expect(table.entryCount == 4)
            #expect(table[0] == nil)
        }
    }

    @Test func decodesThirtyTwoBitBigEndianWords() {
        let words: [UInt32] = [0x400, 0b111]
        var bytes: [UInt8] = []
        for word in words { withUnsafeBytes(of: word.bigEndian) { bytes += $0 } }
        bytes.withUnsafeBytes { raw in
            let table = ELFRelocationTable(
                name: "DT_RELR", format: .relr, offset: 0,
                data: ByteReader(raw, bigEndian: true), is64: false)
            var addresses: [UInt64] = []
            table.forEachRelrAddress { addresses.append($0) }
            #expect(addresses == [0x400, 0x404, 0x408])
        }
    }
}

@Suite struct RelocationClassTests {
    @Test func classifiesTheLoaderRelevantTypesOfEveryNamedMachine() {
        let table: [(ELFMachine, UInt32, RelocationClass)] = [
            (.x86_64, 8, .relative), (.x86_64, 7, .plt), (.x86_64, 6, .symbolic), (.x86_64, 1, .symbolic),
            (.x86_64, 5, .copy), (.x86_64, 37, .irelative), (.x86_64, 16, .tls), (.x86_64, 18, .tls),
            (.x86_64, 36, .tls), (.x86_64, 0, .none),
            (.i386, 8, .relative), (.i386, 7, .plt), (.i386, 42, .irelative), (.i386, 35, .tls), (.i386, 1, .symbolic),
            (.aarch64, 1027, .relative), (.aarch64, 1026, .plt), (.aarch64, 1025, .symbolic), (.aarch64, 1024, .copy),
            (.aarch64, 1031, .tls), (.aarch64, 1032, .irelative),
            (.arm, 23, .relative), (.arm, 22, .plt), (.arm, 21, .symbolic), (.arm, 17, .tls), (.arm, 160, .irelative),
            (.riscv, 3, .relative), (.riscv, 5, .plt), (.riscv, 2, .symbolic), (.riscv, 7, .tls),
            (.riscv, 58, .irelative),
            (.ppc64, 22, .relative), (.ppc64, 21, .plt), (.ppc64, 38, .symbolic), (.ppc64, 68, .tls),
            (.ppc64, 248, .irelative),
            (.s390, 12, .relative), (.s390, 11, .plt), (.s390, 10, .symbolic), (.s390, 56, .tls),
            (.s390, 61, .irelative),
            (ELFMachine(rawValue: 9999), 8, .symbolic),
        ]
        for (machine, type, expected) in table {
            #expect(machine.relocationClass(type) == expected, "\(machine) type \(type)")
        }
    }

    @Test func constantsPrintTheirCNames() {
        #expect(DynamicTag.needed.description == "DT_NEEDED")
        #expect(DynamicTag(rawValue: 0x6fff_fef5).description == "DT_GNU_HASH")
        #expect(DynamicTag(rawValue: 0x1234).description == "DT_0x1234")
        #expect(ELFMachine.x86_64.description == "EM_X86_64")
        #expect(SectionType.relr.description == "SHT_RELR")
    }
}
