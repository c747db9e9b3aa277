import ELFKit
import Foundation
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

@testable import PremainAudit
@testable import PremainJudge
@testable import PremainLaunch

/// The defects of issue 14 (hostile input and faults), one test each, named after the defect.
/// Crafted inputs are made here from small recipes; every test asserts the one-line error or
/// the correct result, never a duration.
@Suite struct HostileInputTests {
    let folder: String = {
        let path = TemporaryFolders.root + "/premain-hostile-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// A Swift variable's once-function name made `count` levels of `Optional` deep: the shape
    /// of the ~210 KB name that overflowed the stack in `swift_demangle`.
    static func nestedSwiftName(levels count: Int) -> String {
        "$s4main1xSi" + String(repeating: "Sg", count: count) + "vpWZ"
    }

    /// Runs `body` on a thread with a small stack (a worker thread's), returning its result.
    static func onSmallStack<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: T?
        let thread = Thread {
            result = body()
            done.signal()
        }
        thread.stackSize = 512 << 10
        thread.start()
        done.wait()
        return result
    }

    // 1. Crash — long Swift symbol names.
    @Test func longSwiftSymbolNameDoesNotOverflowTheStack() {
        let huge = Self.nestedSwiftName(levels: 105_000)  // ~210 KB: kept mangled
        let long = Self.nestedSwiftName(levels: 30_000)  // ~60 KB: demangled on a large stack
        let results = Self.onSmallStack {
            (Demangler.demangle(huge), Demangler.demangle(long), Demangler.demangle("$s4main1xSivp"))
        }
        #expect(huge.utf8.count > Demangler.maxNameLength)
        #expect(results?.0 == nil)
        #expect(results?.1?.hasPrefix("one-time initialization function for") == true)
        #expect(results?.2 == "main.x : Swift.Int")
    }

    // 2. Crash — deeply nested DWARF.
    @Test func deeplyNestedDWARFIsWalkedWithoutRecursion() throws {
        let object = try Self.assembleNestedDWARF(levels: 25_000, in: folder)
        let info = try #require(DebugInfo(path: object))
        let copies = info.inlinedCopies { $0 == "shallow_inlined" || $0 == "deep_inlined" }
        // The copy after the 25,000-level chain is found: the walk came back out of it.
        #expect(copies.map(\.symbol) == ["shallow_inlined"])
        #expect(copies.first?.entry == 0x1000)
    }

    /// An object whose `.debug_info` nests `levels` lexical blocks, with an inlined copy of
    /// `deep_inlined` at the bottom and one of `shallow_inlined` after the chain (assembled by
    /// GNU as from generated directives).
    static func assembleNestedDWARF(levels: Int, in folder: String) throws -> String {
        var dies = [UInt8]()
        func uleb(_ value: Int) {
            var value = value
            repeat {
                var byte = UInt8(value & 0x7f)
                value >>= 7
                if value != 0 { byte |= 0x80 }
                dies.append(byte)
            } while value != 0
        }
        func inlined(_ name: String, at address: UInt64) {
            uleb(3)
            dies += Array(name.utf8) + [0]
            for value in [address, 0x10] { dies += withUnsafeBytes(of: value.littleEndian, Array.init) }
        }
        uleb(1)
        for _ in 0..<levels { uleb(2) }
        inlined("deep_inlined", at: 0x2000)
        dies += [UInt8](repeating: 0, count: levels)
        inlined("shallow_inlined", at: 0x1000)
        dies.append(0)
        let unitLength = 2 + 4 + 1 + dies.count
        var source = """
            .section .debug_abbrev,"",@progbits
            .uleb128 1, 0x11
            .byte 1, 0, 0
            .uleb128 2, 0x0b
            .byte 1, 0, 0
            .uleb128 3, 0x1d
            .byte 0
            .uleb128 0x6e, 0x08, 0x11, 0x01, 0x12, 0x07
            .byte 0, 0, 0
            .section .debug_info,"",@progbits
            .long \(unitLength)
            .short 4
            .long 0
            .byte 8

            """
        for start in stride(from: 0, to: dies.count, by: 64) {
            source +=
                "    .byte " + dies[start..<min(start + 64, dies.count)].map(String.init).joined(separator: ",") + "\n"
        }
        let assembly = folder + "/nested.s"
        let object = folder + "/nested.o"
        try source.write(toFile: assembly, atomically: true, encoding: .utf8)
        let result = try Shell.run(["as", "-o", object, assembly])
        guard result.status == 0 else { throw SampleBuildError(message: "as failed: \(result.stderr)") }
        return object
    }

    // 3. SIGBUS when the audited file shrinks while it is read.
    @Test func fileThatShrinksWhileReadIsNotASIGBUS() throws {
        let path = folder + "/shrinking.so"
        try FileManager.default.copyItem(atPath: try Samples.path("cxx-static-init/libinit.so"), toPath: path)
        let file = try ELFFile(path: path)
        #expect(!file.changedSinceOpen)
        #expect(truncate(path, 1024) == 0)
        // Every table past 1 KiB is now beyond the end of the mapped file: each read there
        // raises SIGBUS, which the guard turns into a page of zeros and counts.
        let inventory = InventoryBuilder.audit(file, options: InventoryOptions(symbolLists: true))
        #expect(file.shrankWhileMapped)
        #expect(file.changedSinceOpen)
        #expect(inventory.symbols.exported == 0)
        #expect(ELFOpenError.changedWhileRead.message == "the file changed while it was read")
    }

    // 4. Hang on a FIFO argument.
    @Test func fifoArgumentIsRefusedBeforeAnyBlockingOpen() throws {
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: ELFOpenError(.notRegularFile, "not a regular file")) { try ELFFile(path: fifo) }
        #expect(LocalFiles.read(fifo) == nil)
        #expect(LocalFiles.head(fifo, count: 64) == nil)
        #expect(!LocalFiles.startsLikeJSON(fifo))
        let loaded = RuleInputLoader().load([fifo])
        #expect(loaded.errors.map(\.message) == ["not a regular file"])
        #expect(DebugInfo(path: fifo) == nil)
    }

    // 5. Crashes on crafted reports.
    @Test func craftedReportNumbersAreRefusedWhenDecoded() throws {
        let golden = try String(contentsOfFile: Repository.root + "/Tests/Golden/measure.json", encoding: .utf8)
        func load(_ edit: (inout [String: Any]) -> Void) throws -> String {
            var document = try #require(try JSONSerialization.jsonObject(with: Data(golden.utf8)) as? [String: Any])
            var measurements = try #require(document["measurements"] as? [[String: Any]])
            edit(&measurements[0])
            document["measurements"] = measurements
            let text = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
            do {
                _ = try RuleInputLoader.report(text)
                return "decoded"
            } catch {
                return error.description
            }
        }
        func milestone(_ fields: [String: Any]) -> (inout [String: Any]) -> Void {
            { measurement in
                var milestones = measurement["milestones"] as? [String: Any] ?? [:]
                milestones["main"] = fields
                measurement["milestones"] = milestones
            }
        }
        #expect(try load { _ in } == "decoded")
        #expect(
            try load { $0["runs"] = -5 }
                == "not a measure report of this premain version: measurements[0].runs: expected a whole number from 0 to 1000000, found -5"
        )
        // A count no Int holds is out of range, not Foundation's internal error name.
        #expect(
            try load { $0["runs"] = 1e300 } == "not a measure report of this premain version: a number out of range")
        #expect(
            try load(milestone(["medianMs": 1e300]))
                == "not a measure report of this premain version: measurements[0].milestones.main.medianMs: expected milliseconds from 0 to 1e9, found 1e+300"
        )
        #expect(
            try load(milestone(["medianMs": 1, "samplesMs": [1, 1e308, -1e308]]))
                == "not a measure report of this premain version: measurements[0].milestones.main.samplesMs: expected milliseconds from 0 to 1e9, found 1e+308"
        )
        // A measured time is a duration (issue 34, defect 10: a mapping of -5 ms was priced).
        #expect(
            try load(milestone(["medianMs": -5]))
                == "not a measure report of this premain version: measurements[0].milestones.main.medianMs: expected milliseconds from 0 to 1e9, found -5"
        )
        #expect(
            try load(milestone(["medianMs": 1, "samplesMs": [1, 2], "outliers": [7]]))
                == "not a measure report of this premain version: measurements[0].milestones.main.outliers: outlier index 7 is not an index of samplesMs (2 samples)"
        )
        // Renderers given huge values they did not decode still do not trap.
        #expect(Milliseconds.number(1e300) == "1e+300")
        #expect(Milliseconds.text(-9.5e18) == "-9.5e+18 ms")
    }

    /// What ConfigParser says about `json`: "parsed", or its one-line error.
    static func configError(_ json: String) -> String {
        do {
            _ = try ConfigParser.parse(json)
            return "parsed"
        } catch {
            return error.description
        }
    }

    // 6. Abort on premain.json bootstrapResamples of 10^12.
    @Test func configValuesThatSizeWorkAreBounded() {
        #expect(
            Self.configError(#"{"diff": {"bootstrapResamples": 999999999999}}"#)
                == "premain.json: diff.bootstrapResamples: expected a whole number from 0 to 100000, found 999999999999"
        )
        #expect(
            Self.configError(#"{"diff": {"bootstrapResamples": 1e300}}"#)
                == "premain.json: diff.bootstrapResamples: expected a whole number from 0 to 100000, found 1e+300")
        #expect(
            Self.configError(#"{"compare": {"maxRuns": 5000000}}"#)
                == "premain.json: compare.maxRuns: expected a whole number from 0 to 100000, found 5000000")
        #expect(
            Self.configError(#"{"compare": {"maxSeconds": 1e9}}"#)
                == "premain.json: compare.maxSeconds: expected a number from 0 to 86400, found 1000000000")
        #expect(Self.configError(#"{"diff": {"bootstrapResamples": 2000}}"#) == "parsed")
    }

    // 7 and 14. Terminal escapes and bidirectional controls in trace's text, SARIF and annotations.
    static let hostileName = "evil\u{1B}[2J\u{07}name\nforged line \u{202E}txt.exe\u{2066} @everyone <b>x</b> &amp;"

    @Test func traceTextEscapesTerminalControlsAndBidiMarks() {
        var report = TraceRendererTests.report
        report.measurements[0].command = ["/app/\u{1B}]0;title\u{07}app", "--flag\u{202E}"]
        report.measurements[0].functions[0].symbol = Self.hostileName
        report.measurements[0].functions[0].demangled = nil
        report.measurements[0].untimed[0].demangled = Self.hostileName
        report.measurements[0].notes = [Self.hostileName]
        let text = TraceTextRenderer.render(report, width: 400)
        for unsafe: Unicode.Scalar in ["\u{1B}", "\u{07}", "\u{202E}", "\u{2066}"] {
            #expect(!text.unicodeScalars.contains(unsafe), "U+\(String(unsafe.value, radix: 16)) reached the text")
        }
        #expect(!text.contains("\nforged line"))
        #expect(text.contains("command: /app/\\x1b]0;title\\x07app --flag\\u{202E}"))
        #expect(text.contains("evil\\x1b[2J\\x07name\\x0aforged line \\u{202E}txt.exe\\u{2066}"))
    }

    @Test func sarifAndAnnotationTextCarryNoControlsMentionsOrHTML() throws {
        let finding = Finding(
            rule: "heavy_static_initializer", severity: .warning,
            subject: .init(object: "lib" + Self.hostileName + ".so", symbol: Self.hostileName),
            message: "initializer " + Self.hostileName + " is slow", advice: "make it lazy")
        let report = CheckReport(inputs: ["build"], findings: [finding], failOn: .error, errors: [])
        let scope = SourceScope(root: "/src/app", artifacts: ["build"], workingDirectory: "/src/app")
        let sarif = try SARIFRenderer.render(report, catalog: RuleEngine().catalog, scope: scope)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(sarif.utf8)) as? [String: Any])
        let run = try #require((document["runs"] as? [[String: Any]])?.first)
        let result = try #require((run["results"] as? [[String: Any]])?.first)
        let message = try #require((result["message"] as? [String: Any])?["text"] as? String)
        let logical = try #require(
            ((result["locations"] as? [[String: Any]])?.first?["logicalLocations"] as? [[String: Any]]))
        let names = logical.flatMap { [$0["name"] as? String ?? "", $0["fullyQualifiedName"] as? String ?? ""] }
        let annotation = GitHubAnnotationRenderer.render(
            report, scope: SourceScope(root: "/", artifacts: ["/"], workingDirectory: "/"))
        for text in [message, annotation] + names {
            for unsafe: Unicode.Scalar in ["\u{1B}", "\u{07}", "\n", "\u{202E}", "\u{2066}"]
            where !(text == annotation && unsafe == "\n") {
                #expect(!text.unicodeScalars.contains(unsafe), "U+\(String(unsafe.value, radix: 16)) in \(text)")
            }
            #expect(!text.contains("@everyone"))
            #expect(!text.contains("<b>"))
            #expect(!text.contains("&amp;"))
        }
        #expect(message.contains("@\u{200D}everyone <\u{200D}b>x<\u{200D}/b> &\u{200D}amp;"))
        #expect(MarkdownEscape.text("a\u{2067}b\u{85}c") == "aU+2067bU+85c")
    }

    // 16. trace --cpu 7 on 2 CPUs reported as pinned.
    @Test func traceDoesNotClaimAPinningThatCannotHappen() {
        let refused = Tracer.pinning(cpu: 7, allowed: [0, 1])
        #expect(!refused.pinned)
        #expect(refused.reason == "CPU 7 is not one this process may run on")
        #expect(Tracer.pinning(cpu: 1, allowed: [0, 1]).pinned)
    }

    // 17. Reports and premain.json that were accepted silently.
    @Test func unknownSchemaVersionIsRefused() throws {
        let golden = try String(contentsOfFile: Repository.root + "/Tests/Golden/measure.json", encoding: .utf8)
        let future = golden.replacingOccurrences(of: "\"schemaVersion\" : 1", with: "\"schemaVersion\" : 99")
        #expect(future != golden)
        #expect(throws: (any Error).self) { try RuleInputLoader.report(future) }
        do {
            _ = try RuleInputLoader.report(future)
        } catch {
            #expect(
                error.description
                    == "schemaVersion 99 is not supported; this premain reads a measure report of version 1")
        }
    }

    @Test func measureReportGivenWhereAnAuditIsExpectedIsRefused() throws {
        let measure = try RuleInputLoader.report(
            String(contentsOfFile: Repository.root + "/Tests/Golden/measure.json", encoding: .utf8))
        let audit = RuleInputLoader().load([try Samples.path("cxx-static-init/libinit.so")]).input
        #expect(
            DiffBuilder.mismatch(base: measure, head: audit)
                == "base holds measured launches and head audited objects: nothing to compare; give two builds, two audits, two measure reports or two trace reports"
        )
        #expect(DiffBuilder.mismatch(base: audit, head: audit) == nil)
        #expect(DiffBuilder.mismatch(base: measure, head: RuleInput()) == nil)
    }

    @Test func duplicateKeysInPremainJSONAreRefused() throws {
        #expect(
            Self.configError(#"{"failOn": "warning", "failOn": "note"}"#)
                == "premain.json: failOn: given twice; keep one")
        #expect(
            Self.configError(#"{"rules": {"textrel": {"enabled": true, "enabled": false}}}"#)
                == "premain.json: rules.textrel.enabled: given twice; keep one")
        #expect(
            Self.configError(String(repeating: "[", count: 100_000))
                == "premain.json: not valid JSON: nested deeper than 256 levels at byte 256")
        #expect(Self.configError("{") == "premain.json: not valid JSON: expected a key at byte 1")
        #expect(
            Self.configError(#"{"diff": {"alpha": 1e999}}"#)
                == "premain.json: not valid JSON: not a finite number at byte 19")
        #expect(try ConfigParser.parse(#"{"comment": "caf\u00e9 \ud83d\ude00", "failOn": "never"}"#).failNever)
    }

    @Test func gnuHashWithEndlessChainsIsIndexedByName() throws {
        let original = try Samples.path("many-exports/libexports-default.so")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: original)))
        let file = try ELFFile(path: original)
        let section = try #require(file.section(named: ".gnu.hash"))
        let symbols = try #require(file.dynamicSymbols)
        let sound = try #require(ELFSymbolLookup(file))
        #expect(!sound.isIndexedByName)
        // Clear the end bit of every chain entry: each look-up would walk to the end of .dynsym.
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        let base = Int(section.offset)
        let buckets = u32(base)
        let symbolOffset = u32(base + 4)
        let bloomWords = u32(base + 8)
        let chains = base + 16 + bloomWords * 8 + buckets * 4
        for index in 0..<(symbols.count - symbolOffset) { bytes[chains + index * 4] &= 0xFE }
        let crafted = folder + "/endless-chains.so"
        FileManager.default.createFile(atPath: crafted, contents: Data(bytes))
        let lookup = try #require(ELFSymbolLookup(try ELFFile(path: crafted)))
        #expect(lookup.isIndexedByName)
        var names: [String] = []
        symbols.forEach { symbol in
            if symbol.isDefined, let name = symbols.name(of: symbol), !name.isEmpty { names.append(name) }
            return true
        }
        #expect(names.count > 100)
        for name in names { #expect(lookup.definitions(of: name) == sound.definitions(of: name), "\(name)") }
    }
}
