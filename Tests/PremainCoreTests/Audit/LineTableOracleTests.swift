import ELFKit
import Foundation
import PremainTestSupport
import Testing

@testable import PremainAudit
@testable import PremainModel

/// `LineTable` (the `.debug_line` reader) against libdw (`DebugInfo.sourceLocation(of:)`) on
/// real DWARF: wherever the reader answers, its answer is libdw's. Files that are not on this
/// machine are skipped.
struct LineTableOracleTests {
    /// libc's separate debug file on Debian 12 (DWARF 5, compressed sections).
    static let libcDebug = "/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug"

    /// What one comparison found.
    struct Tally {
        var asked = 0
        var answered = 0
        var located = 0
        var refusal: String?
    }

    /// Every defined function's address (at most `cap`), addresses inside those functions, and
    /// addresses outside any unit; each answer the reader gives must be libdw's.
    static func compare(_ path: String, cap: Int = 3000) throws -> Tally {
        let file = try ELFFile(path: path)
        let info = try #require(DebugInfo(path: path), "libdw reads \(path)")
        var addresses: [UInt64] = [0, 0x10, UInt64.max - 1, UInt64.max - 300]
        if let last = file.sections.filter(\.isAllocated).map({ $0.address &+ $0.size }).max() {
            addresses += [last, last + 0x1000]
        }
        var functions: [UInt64] = []
        file.staticSymbols?.forEach { symbol in
            if symbol.kind == .function, symbol.isDefined, symbol.value != 0 { functions.append(symbol.value) }
            return functions.count < cap
        }
        for (index, start) in functions.enumerated() {
            addresses.append(start)
            if index % 3 == 0 { addresses += [start + 1, start + 7, start + 40] }
        }
        let table = LineTable(file)
        let answers = table.answers(for: addresses)
        var tally = Tally(asked: Set(addresses).count, refusal: table.refusal)
        for (address, answer) in answers.sorted(by: { $0.key < $1.key }) {
            guard case .location(let location) = answer else { continue }
            tally.answered += 1
            if location != nil { tally.located += 1 }
            #expect(
                location == info.sourceLocation(of: address),
                "\(path) at 0x\(String(address, radix: 16)): reader \(String(describing: location))")
        }
        return tally
    }

    @Test func libcDebugFileAgreesWithLibdwAndIsAnswered() throws {
        guard FileManager.default.fileExists(atPath: Self.libcDebug) else { return }
        let tally = try Self.compare(Self.libcDebug)
        #expect(tally.refusal == nil)
        // DWARF 5 names every directory itself: the reader answers nearly everything there.
        #expect(tally.answered * 10 >= tally.asked * 9, "answered \(tally.answered) of \(tally.asked)")
        #expect(tally.located * 2 >= tally.asked, "located \(tally.located) of \(tally.asked)")
    }

    @Test func samplesWithDWARFAgreeWithLibdw() throws {
        let folder = try Samples.directory.get()
        var compared = 0
        for path in Self.files(under: folder) {
            guard let file = try? ELFFile(path: path), file.type != 1,
                file.section(named: ".debug_line") != nil, file.section(named: ".debug_info") != nil
            else { continue }
            _ = try Self.compare(path)
            compared += 1
        }
        #expect(compared > 0, "no sample with DWARF under \(folder)")
    }

    @Test(arguments: ["/opt/swift/usr/bin/swift-help", "/opt/swift/usr/lib/libSwiftSourceKitClientPlugin.so"])
    func toolchainFilesAgreeWithLibdw(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        _ = try Self.compare(path, cap: 2000)
    }

    /// The quick first look at each unit (`LineProgram.runQuickly`, taken when no rows are
    /// kept) against the full state machine (`run`, taken when rows are kept): the same span,
    /// sequences and refusal for every unit of `path`; returns how many units were compared.
    static func compareFirstLooks(_ path: String) throws -> Int {
        let file = try ELFFile(path: path)
        let table = LineTable(file)
        guard let sections = table.wholeSections() else { return 0 }
        var offset = 0
        var units = 0
        while offset < sections.line.count {
            let quick = Result { () throws(LineProgram.Refusal) in
                try LineProgram.decode(sections, at: offset, addressSize: table.addressSize, collectRows: false)
            }
            let full = Result { () throws(LineProgram.Refusal) in
                try LineProgram.decode(sections, at: offset, addressSize: table.addressSize, collectRows: true)
            }
            switch (quick, full) {
            case (.success(let a), .success(let b)):
                #expect(a.low == b.low && a.high == b.high && a.sequences == b.sequences, "\(path) unit 0x\(offset)")
                #expect(a.rows.isEmpty && a.end == b.end)
                offset = a.end
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "\(path) unit 0x\(offset)")
                return units
            default:
                Issue.record("\(path) unit 0x\(offset): \(quick) against \(full)")
                return units
            }
            units += 1
        }
        return units
    }

    @Test func quickFirstLookAgreesWithTheStateMachine() throws {
        var paths = [
            Self.libcDebug, "/opt/swift/usr/bin/swift-help", "/opt/swift/usr/lib/libSwiftSourceKitClientPlugin.so",
        ]
        paths += Self.files(under: try Samples.directory.get())
        var units = 0
        for path in paths where FileManager.default.fileExists(atPath: path) {
            guard let file = try? ELFFile(path: path), file.type != 1, file.section(named: ".debug_line") != nil
            else { continue }
            units += try Self.compareFirstLooks(path)
        }
        #expect(units > 0)
    }

    static func files(under folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        return walker.compactMap { $0 as? String }.map { folder + "/" + $0 }.filter { path in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted()
    }
}
