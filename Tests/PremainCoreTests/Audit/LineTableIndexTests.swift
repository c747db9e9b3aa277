import ELFKit
import Foundation
import PremainTestSupport
import Testing

@testable import PremainAudit
@testable import PremainModel

/// `LineTable`'s way through `.debug_aranges` (one line program per address) against its pass
/// over every line program: wherever the index answers, the answer is the pass's, and without
/// `.debug_aranges` every address goes to the pass.
struct LineTableIndexTests {
    /// Two C units (the second calls the first), built by gcc with compressed DWARF 5, once
    /// with and once without `.debug_aranges`.
    static let built: Result<(withRanges: String, withoutRanges: String), SampleBuildError> = {
        guard let folder = try? TemporaryFolders.make("line-index") else {
            return .failure(SampleBuildError(message: "no temporary folder"))
        }
        let sources = [
            ("scale.c", "int scale(int x) {\n  int y = x * 3;\n  return y + 1;\n}\n"),
            ("main.c", "int scale(int);\nint main(int argc, char **argv) {\n  (void)argv;\n  return scale(argc);\n}\n"),
        ]
        for (name, text) in sources {
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(text.utf8))
        }
        let withRanges = folder + "/with-aranges"
        let withoutRanges = folder + "/without-aranges"
        let steps = [
            [
                "gcc", "-g", "-O1", "-gdwarf-5", "-Wl,--compress-debug-sections=zlib", "-o", withRanges,
                folder + "/scale.c", folder + "/main.c",
            ],
            ["objcopy", "--remove-section=.debug_aranges", withRanges, withoutRanges],
        ]
        for step in steps {
            guard let result = try? Shell.run(step), result.status == 0 else {
                return .failure(SampleBuildError(message: "\(step[0]) failed"))
            }
        }
        return .success((withRanges, withoutRanges))
    }()

    /// The defined functions' addresses of `file` and addresses inside them (at most `cap`
    /// functions), with addresses outside every unit.
    static func addresses(of file: ELFFile, cap: Int) -> [UInt64] {
        var addresses: [UInt64] = [0, 0x10, UInt64.max - 1]
        var functions: [UInt64] = []
        file.staticSymbols?.forEach { symbol in
            if symbol.kind == .function, symbol.isDefined, symbol.value != 0 { functions.append(symbol.value) }
            return functions.count < cap
        }
        for start in functions { addresses += [start, start + 1, start + 9] }
        return addresses
    }

    /// The value of the symbol named `name`; `nil` when there is none.
    static func address(of name: String, in file: ELFFile) -> UInt64? {
        var found: UInt64?
        file.staticSymbols.map { table in
            table.forEach { symbol in
                if table.name(of: symbol) == name { found = symbol.value }
                return found == nil
            }
        }
        return found
    }

    /// Compares the index with the pass on `path`; returns how many addresses the index
    /// answered and how many were asked.
    static func compare(_ path: String, cap: Int = 3000) throws -> (indexed: Int, asked: Int) {
        let file = try ELFFile(path: path)
        let addresses = Array(Set(Self.addresses(of: file, cap: cap))).sorted()
        let indexed = LineTable(file)
        let scanned = LineTable(file).scannedAnswers(for: addresses)
        var answered = 0
        for address in addresses {
            guard let answer = indexed.indexedAnswer(for: address) else { continue }
            answered += 1
            #expect(answer == scanned[address], "\(path) at 0x\(String(address, radix: 16))")
        }
        // The answers as the audit asks for them (index first, the pass for the rest) are the
        // pass's wherever the pass answers.
        let mixed = LineTable(file).answers(for: addresses)
        for address in addresses where scanned[address] != .declined {
            #expect(mixed[address] == scanned[address], "\(path) at 0x\(String(address, radix: 16))")
        }
        return (answered, addresses.count)
    }

    @Test func libcDebugFileIsAnsweredThroughTheIndexAsByThePass() throws {
        let path = LineTableOracleTests.libcDebug
        guard FileManager.default.fileExists(atPath: path) else { return }
        let table = LineTable(try ELFFile(path: path))
        #expect(table.addressRanges != nil)
        let (indexed, asked) = try Self.compare(path)
        // Function starts and addresses inside them: nearly all are in exactly one unit.
        #expect(indexed * 10 >= asked * 8, "indexed \(indexed) of \(asked)")
    }

    @Test func gccProgramIsAnsweredThroughItsAddressRanges() throws {
        let path = try Self.built.get().withRanges
        let file = try ELFFile(path: path)
        let ranges = try #require(LineTable(file).addressRanges)
        #expect(ranges.unitCount == 2)
        let scale = try #require(Self.address(of: "scale", in: file))
        let table = LineTable(file)
        guard case .location(let location?)? = table.indexedAnswer(for: scale) else {
            Issue.record("scale at 0x\(String(scale, radix: 16)) not answered through the index")
            return
        }
        #expect(location.file.hasSuffix("scale.c"))
        #expect(location == DebugInfo(path: path)?.sourceLocation(of: scale))
        #expect(table.indexedAnswer(for: 0x10) == nil)
        let (indexed, _) = try Self.compare(path)
        #expect(indexed > 0)
    }

    @Test func gccProgramWithoutAddressRangesGoesToThePass() throws {
        let path = try Self.built.get().withoutRanges
        let file = try ELFFile(path: path)
        let table = LineTable(file)
        #expect(table.addressRanges == nil)
        let addresses = Self.addresses(of: file, cap: 100)
        #expect(addresses.allSatisfy { table.indexedAnswer(for: $0) == nil })
        let scale = try #require(Self.address(of: "scale", in: file))
        guard case .location(let location?)? = table.answers(for: [scale])[scale] else {
            Issue.record("scale at 0x\(String(scale, radix: 16)) not answered by the pass")
            return
        }
        #expect(location.file.hasSuffix("scale.c"))
        #expect(location == DebugInfo(path: path)?.sourceLocation(of: scale))
    }

    /// A 32-bit DWARF `.debug_aranges` set for 8-byte addresses: header, padding to 16, the
    /// tuples and the (0, 0) end.
    static func arangesSet(infoOffset: UInt32, ranges: [(UInt64, UInt64)], version: UInt16 = 2) -> [UInt8] {
        func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        var body = bytes(version) + bytes(infoOffset) + [8, 0] + [UInt8](repeating: 0, count: 4)
        for (address, length) in ranges + [(0, 0)] { body += bytes(address) + bytes(length) }
        return bytes(UInt32(body.count)) + body
    }

    static func addressRanges(_ bytes: [UInt8]) -> AddressRanges? {
        bytes.withUnsafeBytes { AddressRanges(ByteReader($0, bigEndian: false), addressSize: 8) }
    }

    @Test func unitsAreRankedByTheirInfoOffsetWhateverTheSetOrder() throws {
        let sets =
            Self.arangesSet(infoOffset: 0x200, ranges: [(0x3000, 0x10), (0x1000, 0x20)])
            + Self.arangesSet(infoOffset: 0x10, ranges: [(0x2000, 0x40)])
        let ranges = try #require(Self.addressRanges(sets))
        #expect(ranges.unitCount == 2)
        #expect(ranges.unit(holding: 0x2010) == 0 && ranges.unit(holding: 0x1000) == 1)
        #expect(ranges.unit(holding: 0x1020) == nil)
        #expect(ranges.ranges(ofUnit: 1) == [0x1000..<0x1020, 0x3000..<0x3010])
        let overlapping = try #require(
            Self.addressRanges(
                Self.arangesSet(infoOffset: 0, ranges: [(0x1000, 0x20)])
                    + Self.arangesSet(infoOffset: 0x40, ranges: [(0x1010, 0x20)])))
        #expect(overlapping.unit(holding: 0x1018) == nil && overlapping.unit(holding: 0x1008) == 0)
    }

    @Test func unusualSetsLeaveNoIndex() {
        let one = Self.arangesSet(infoOffset: 0x10, ranges: [(0x2000, 0x40)])
        #expect(Self.addressRanges(one + one) == nil, "two sets for one unit")
        #expect(Self.addressRanges(Self.arangesSet(infoOffset: 0, ranges: [(1, 1)], version: 3)) == nil)
        #expect(Self.addressRanges(Array(one.dropLast(8))) == nil, "truncated")
        #expect(Self.addressRanges([]) == nil)
    }

    @Test func rangesAreMergedWhereTheyTouch() {
        #expect(AddressRanges.merged([8..<12, 0..<4, 4..<6, 20..<20, 10..<16]) == [0..<6, 8..<16])
    }
}
