import ELFKit
import Testing

@testable import PremainAudit

/// `LineProgram` on line programs made by hand: what it reads from sound ones, and that
/// truncated headers, bad lengths and huge counts are refused without a trap or a large
/// allocation.
struct LineProgramTests {
    /// A DWARF 4 unit (32-bit): directory "/src", files "a.c" (directory 1) and "b.c"
    /// (directory 0, the unit's DW_AT_comp_dir), then `program`.
    static func version4(program: [UInt8], headerLengthDelta: Int = 0) -> [UInt8] {
        // Min_inst, max_ops, is_stmt, line_base -5, range 14, opcode_base 13.
        var header: [UInt8] = [1, 1, 1, 0xfb, 14, 13]
        header += [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]  // standard_opcode_lengths
        header += Array("/src".utf8) + [0, 0]  // include_directories
        header += Array("a.c".utf8) + [0, 1, 0, 0]  // file 1
        header += Array("b.c".utf8) + [0, 0, 0, 0]  // file 2
        header += [0]
        var body: [UInt8] = [4, 0]  // version 4
        body += le32(UInt32(header.count + headerLengthDelta)) + header + program
        return le32(UInt32(body.count)) + body
    }

    /// A DWARF 5 unit (32-bit, 8-byte addresses) with inline-string paths: directories
    /// "/work" and "inc", files "main.c" (directory 0) and "x.h" (directory 1).
    static func version5(directoryCount: [UInt8] = [2], fileCount: [UInt8] = [2], program: [UInt8]) -> [UInt8] {
        var header: [UInt8] = [1, 1, 1, 0xfb, 14, 13]
        header += [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]
        header += [1, 1, 0x08] + directoryCount  // format: DW_LNCT_path, DW_FORM_string
        header += Array("/work".utf8) + [0] + Array("inc".utf8) + [0]
        header += [2, 1, 0x08, 2, 0x0b] + fileCount  // path string, directory_index data1
        header += Array("main.c".utf8) + [0, 0] + Array("x.h".utf8) + [0, 1]
        var body: [UInt8] = [5, 0, 8, 0]
        body += le32(UInt32(header.count)) + header + program
        return le32(UInt32(body.count)) + body
    }

    static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// set_address 0x1000, copy, special (+1 line, +2 bytes), advance_line -1 and copy,
    /// set_file 2, advance_pc 4, copy, advance_pc 3, end_sequence.
    static let program: [UInt8] = [
        0, 9, 2, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 1,
        13 + 6 + 2 * 14, 3, 0x7f, 1, 4, 2, 2, 4, 1, 2, 3, 0, 1, 1,
    ]

    static func decode(_ bytes: [UInt8], addressSize: Int = 8) throws(LineProgram.Refusal) -> LineProgram {
        let result: Result<LineProgram, LineProgram.Refusal> = bytes.withUnsafeBytes { raw in
            let sections = LineProgram.Sections(line: ByteReader(raw, bigEndian: false)) { _ in nil }
            do throws(LineProgram.Refusal) {
                return .success(try LineProgram.decode(sections, at: 0, addressSize: addressSize))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    @Test func readsTheRowsAndFilesOfAVersion4Unit() throws {
        let program = try Self.decode(Self.version4(program: Self.program))
        #expect(program.version == 4)
        #expect(program.rows.map(\.address) == [0x1000, 0x1002, 0x1002, 0x1006, 0x1009])
        #expect(program.rows.map(\.line) == [1, 2, 1, 1, 1])
        #expect(program.rows.map(\.file) == [1, 1, 1, 2, 2])
        #expect(program.rows.map(\.endSequence) == [false, false, false, false, true])
        #expect(program.rows.allSatisfy { $0.sequenceStart == 0x1000 })
        // "???" for index 0, then a.c in /src and b.c in the unknown DW_AT_comp_dir.
        #expect(program.files.map(\.directory) == [nil, 1, 0])
        #expect(program.directories.count == 2 && program.directories[0] == nil)
    }

    @Test func readsTheTablesOfAVersion5Unit() throws {
        let program = try Self.decode(Self.version5(program: Self.program))
        #expect(program.version == 5)
        #expect(program.directories.count == 2 && program.directories.allSatisfy { $0 != nil })
        #expect(program.files.map(\.directory) == [0, 1])
        #expect(program.rows.count == 5)
    }

    @Test func everyTruncationIsRefusedWithoutATrap() {
        for unit in [Self.version4(program: Self.program), Self.version5(program: Self.program)] {
            for cut in 0..<unit.count {
                #expect(throws: LineProgram.Refusal.self) { try Self.decode(Array(unit[..<cut])) }
            }
            // The unit length kept, the bytes cut: the header or the program ends early.
            for cut in 4..<unit.count {
                var shortened = Array(unit[..<cut])
                shortened.replaceSubrange(0..<4, with: Self.le32(UInt32(cut - 4)))
                _ = try? Self.decode(shortened)
            }
        }
    }

    @Test func everyByteFlippedDecodesOrIsRefused() {
        for unit in [Self.version4(program: Self.program), Self.version5(program: Self.program)] {
            for index in unit.indices {
                for value: UInt8 in [0x00, 0x7f, 0x80, 0xff] {
                    var changed = unit
                    changed[index] = value
                    _ = try? Self.decode(changed)
                }
            }
        }
    }

    @Test func badLengthsAreRefused() {
        var unit = Self.version4(program: Self.program)
        unit.replaceSubrange(0..<4, with: Self.le32(0xffff_fff0))
        #expect(throws: LineProgram.Refusal.self) { try Self.decode(unit) }
        // 64-bit DWARF whose length is past the section.
        let huge: [UInt8] = [0xff, 0xff, 0xff, 0xff] + [UInt8](repeating: 0xff, count: 8) + [4, 0]
        #expect(throws: LineProgram.Refusal.self) { try Self.decode(huge) }
        // A header length that disagrees with the tables.
        #expect(throws: LineProgram.Refusal.self) {
            try Self.decode(Self.version4(program: Self.program, headerLengthDelta: 1))
        }
        #expect(throws: LineProgram.Refusal.self) {
            try Self.decode(Self.version4(program: Self.program, headerLengthDelta: -4))
        }
        // Version 6, and a DWARF 5 unit whose address size is not the file's.
        var version6 = Self.version4(program: Self.program)
        version6[4] = 6
        #expect(throws: LineProgram.Refusal.self) { try Self.decode(version6) }
        #expect(throws: LineProgram.Refusal.self) {
            try Self.decode(Self.version5(program: Self.program), addressSize: 4)
        }
    }

    @Test func hugeCountsAreRefusedBeforeAnyAllocation() {
        let huge: [UInt8] = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]
        #expect(throws: LineProgram.Refusal.self) {
            try Self.decode(Self.version5(directoryCount: huge, program: Self.program))
        }
        #expect(throws: LineProgram.Refusal.self) {
            try Self.decode(Self.version5(fileCount: huge, program: Self.program))
        }
        // A count over 63 bits (10 LEB128 bytes) is not guessed at.
        let overlong = [UInt8](repeating: 0x80, count: 9) + [1]
        #expect(throws: LineProgram.Refusal.self) {
            try Self.decode(Self.version5(fileCount: overlong, program: Self.program))
        }
    }

    @Test func programsLibdwReadsOtherwiseAreRefused() {
        // DW_LNE_define_file, a set_address of 4 bytes in a 64-bit file, an extended opcode of
        // length 0, and rows after the last end_sequence.
        let defineFile: [UInt8] = [0, 6, 3, 0x61, 0, 0, 0, 0]
        let shortAddress: [UInt8] = [0, 5, 2, 0, 0x10, 0, 0, 1, 0, 1, 1]
        let emptyExtended: [UInt8] = [0, 0, 0x80]
        let unterminated: [UInt8] = [0, 9, 2, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 1]
        for program in [defineFile, shortAddress, emptyExtended, unterminated] {
            #expect(throws: LineProgram.Refusal.self) { try Self.decode(Self.version4(program: program)) }
        }
        // A column libdw cannot store (above 65535) makes libdw refuse the unit.
        let wideColumn: [UInt8] = [0, 9, 2, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 5, 0x80, 0x80, 0x04, 1, 0, 1, 1]
        #expect(throws: LineProgram.Refusal.self) { try Self.decode(Self.version4(program: wideColumn)) }
    }

    /// What a first look (no rows kept: `runQuickly` where it can) and a full decode (`run`)
    /// make of `bytes`: span and sequences, or the refusal.
    static func firstLooks(_ bytes: [UInt8]) -> (quick: String, full: String) {
        bytes.withUnsafeBytes { raw in
            let sections = LineProgram.Sections(line: ByteReader(raw, bigEndian: false)) { _ in nil }
            func look(_ rows: Bool) -> String {
                do throws(LineProgram.Refusal) {
                    let program = try LineProgram.decode(sections, at: 0, addressSize: 8, collectRows: rows)
                    return "\(program.low) \(program.high) \(program.sequences) \(program.end)"
                } catch {
                    return error.description
                }
            }
            return (look(false), look(true))
        }
    }

    /// Every byte of sound units changed to values that matter to the state machine (opcodes,
    /// lengths, LEB128 continuation bits): the quick first look always agrees with the full one.
    @Test func quickFirstLookAgreesWithTheFullDecodeOnMutatedUnits() {
        let program: [UInt8] =
            Self.program + [
                0, 9, 2, 0x00, 0x20, 0, 0, 0, 0, 0, 0, 5, 3, 6, 7, 10, 11, 12, 1, 8, 9, 0x10, 0, 0, 2, 4, 7,
                0, 5, 0x80, 1, 13 + 30, 0, 1, 1,
            ]
        var compared = 0
        for unit in [Self.version4(program: program), Self.version5(program: program)] {
            for index in unit.indices {
                for value: UInt8 in [0, 1, 2, 3, 4, 8, 9, 12, 13, 14, 0x7f, 0x80, 0xff, unit[index] ^ 0x80] {
                    var bytes = unit
                    bytes[index] = value
                    let (quick, full) = Self.firstLooks(bytes)
                    #expect(quick == full, "byte \(index) = \(value)")
                    compared += 1
                }
            }
        }
        #expect(compared > 1000)
    }
}
