import ELFKit
import Foundation
import PremainAudit
import PremainField
import PremainHistory
import PremainJudge
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

@testable import PremainLaunch

/// Replays the inputs kept in Tests/FuzzInputs (crafted cases of issue 14 and every crash
/// `scripts/fuzz` ever found) through the code the fuzz targets in Fuzz/ drive, without the
/// sanitizers: each must give a one-line error or a result, never a crash. `scripts/fuzz`
/// seeds its corpora with the same files.
@Suite struct FuzzRegressionTests {
    static func inputs(_ target: String) -> [String] {
        let folder = Repository.root + "/Tests/FuzzInputs/" + target
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.sorted().map { folder + "/" + $0 }
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    @Test func everyTargetHasKeptInputs() {
        for target in ["elf-audit", "report", "config", "dwarf", "ready", "history", "field", "model"] {
            #expect(!Self.inputs(target).isEmpty, "\(target)")
        }
    }

    /// As Fuzz/ELFAuditFuzz.swift: the bytes through libelf in memory, the audit, look-ups.
    @Test(arguments: inputs("elf-audit")) func keptELFInputIsAuditedInMemory(_ path: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let file = try bytes.withUnsafeBytes { try ELFFile(memory: $0, path: "fuzz.elf") }
        let inventory = InventoryBuilder.audit(
            file, options: InventoryOptions(symbolLists: true, demangle: true, sourceLines: false))
        #expect(inventory.path == "fuzz.elf")
        let lookup = try #require(ELFSymbolLookup(file))
        for name in (inventory.symbols.importedNames ?? []) + (inventory.symbols.exportedNames ?? []) {
            _ = lookup.definitions(of: name)
        }
    }

    /// As Fuzz/DWARFFuzz.swift: the DWARF through libdw in memory, inlined copies, source lines.
    @Test(arguments: inputs("dwarf")) func keptDWARFInputIsWalkedInMemory(_ path: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let info = try #require(bytes.withUnsafeBytes { DebugInfo(memory: $0, path: "fuzz.debug") })
        let copies = info.inlinedCopies { _ in true }
        for copy in copies { _ = info.sourceLocation(of: copy.entry) }
        if path.hasSuffix("nested-lexical-blocks-2000") { #expect(copies.map(\.symbol) == ["shallow_inlined"]) }
    }

    /// As Fuzz/ReportFuzz.swift: every kept report is refused with one line naming the key.
    @Test(arguments: inputs("report")) func keptReportIsRefusedWithOneLine(_ path: String) throws {
        let text = try Self.text(path)
        #expect(throws: RuleInputLoader.ReportError.self) { try RuleInputLoader.report(text) }
        do {
            let input = try RuleInputLoader.report(text)
            // Were it accepted, judging and rendering it must still hold.
            let report = DiffBuilder().diff(base: input, head: input, baseLabel: "base", headLabel: "head")
            _ = DiffMarkdownRenderer.render(report)
            _ = try JSONRenderer.render(report)
        } catch let error as RuleInputLoader.ReportError {
            #expect(!error.description.contains("\n"))
        }
    }

    /// As Fuzz/HistoryFuzz.swift: the file a kept input stands for (its first byte: 0 the rest,
    /// 1 a valid premain database cut, 2 that database with bytes replaced) read as `history
    /// show` reads it: a history or a one-line error, and nothing written beside it.
    @Test(arguments: inputs("history")) func keptHistoryInputIsReadOrRefusedWithOneLine(_ path: String) throws {
        let folder = NSTemporaryDirectory() + "premain-fuzz-history-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let database = folder + "/history.sqlite"
        var bytes = Array(input.dropFirst())
        if let mode = input.first, mode % 3 != 0 {
            let valid = folder + "/valid.sqlite"
            do {
                let store = try HistoryStore(path: valid)
                for index in 0..<24 {  // the database Fuzz/HistoryFuzz.swift makes
                    let main = 40 + (index >= 12 ? 2 : 0) + Double(index % 3) * 0.1
                    try store.add(
                        json: "{\"schemaVersion\":1,\"index\":\(index)}", kind: index % 2 == 0 ? "measure" : "trace",
                        metrics: [
                            HistoryMetric(name: "main", unit: "ms", value: main),
                            HistoryMetric(name: "loader.symbolLookups", unit: "count", value: Double(100 + index / 8)),
                            HistoryMetric(name: "trace.function.é|<x>", unit: "ms", value: Double(index)),
                        ],
                        commit: index % 5 == 4 ? nil : "c\(index)", recordedAt: "2026-12-01T00:00:00Z")
                }
            }
            let rest = bytes
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: valid)))
            try FileManager.default.removeItem(atPath: valid)
            if mode % 3 == 1 {
                let offset = rest.prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
                bytes = Array(bytes.prefix(offset % (bytes.count + 1)))
            } else {
                for index in stride(from: 0, to: rest.count - 2, by: 3) {
                    bytes[(Int(rest[index]) | Int(rest[index + 1]) << 8) % bytes.count] = rest[index + 2]
                }
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: database))
        let before = FolderSnapshot(folder)
        do {
            let report = try HistoryStore.reading(database) { store throws(HistoryError) in
                try store.report(metrics: [], last: nil, database: database)
            }
            _ = HistoryTextRenderer.render(report)
            _ = HTMLReportRenderer.render(report)
            if path.hasSuffix("/premain-6-reports") { #expect(report.reports == 6 && report.series.count == 3) }
        } catch {
            #expect(!error.description.contains("\n") && error.description.hasPrefix(database + ": "), "\(error)")
            if path.hasSuffix("/another-programs-photos") {
                #expect(error.kind == .damaged && error.description.contains("photos"))
            }
        }
        #expect(FolderSnapshot(folder) == before, "\(FolderSnapshot(folder))")
    }

    /// As Fuzz/ConfigFuzz.swift: every kept premain.json is refused with one line.
    @Test(arguments: inputs("config")) func keptConfigIsRefusedWithOneLine(_ path: String) throws {
        let text = try Self.text(path)
        do {
            _ = try ConfigParser.parse(text)
            Issue.record("\(path) was accepted")
        } catch {
            #expect(!error.description.contains("\n"))
            #expect(error.description.hasPrefix("premain.json: "))
        }
    }

    /// As Fuzz/ReadyPatternFuzz.swift: the first line a `--ready` pattern, each later line tried
    /// within the matcher's linear bound, and a deadline already passed seen.
    @Test(arguments: inputs("ready")) func keptReadyInputIsMatchedInLinearSteps(_ path: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let split = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
        let pattern = try OutputPattern(String(decoding: bytes[..<split], as: UTF8.self))
        let states = pattern.program.instructions.count
        for line in bytes[min(split + 1, bytes.count)...].split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            var steps = 0
            let outcome = pattern.program.run(text, deadlineNs: nil, steps: &steps)
            #expect(outcome != .deadlinePassed)
            #expect(
                steps <= (4 * states + 1) * (text.count + 1),
                "\(steps) steps, \(states) states, \(text.count) characters")
            #expect(pattern.match(bytes: line, deadlineNs: nil) == outcome)
            var late = 0
            #expect(pattern.program.run(text, deadlineNs: 0, steps: &late) == .deadlinePassed)
        }
    }

    /// As Fuzz/FieldFuzz.swift: the bytes as a spool file, the report, its renderings and a
    /// comparison with itself; every line counted as a launch, a mark, another kind or malformed.
    @Test(arguments: inputs("field")) func keptFieldInputIsReportedAndRendered(_ path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let report = FieldReportBuilder.report(recordBytes: bytes)
        #expect(report.contract.population.launches + report.contract[.malformed] > 0)
        #expect(!FieldTextRenderer.render(report).isEmpty && !FieldHTMLRenderer.render(report).isEmpty)
        let settings = FieldCompareSettings(thresholdMs: 0.5, thresholdPercent: 5, gated: [.p50, .p90])
        let comparison = try FieldComparison.compare(
            old: report, new: report, oldSource: "a", newSource: "a", oldVersion: nil, newVersion: nil,
            settings: settings)
        #expect(comparison.verdict != .regression && comparison.verdict != .improvement)
    }

    /// As Fuzz/ModelFuzz.swift: a cost model read, or a model fitted on a measure report, has
    /// finite, non-negative coefficients; a model with a number out of range is refused.
    @Test(arguments: inputs("model")) func keptModelInputIsReadInRangeOrRefused(_ path: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        var models: [LoaderCostModel] = []
        if let model = try? JSONDecoder().decode(LoaderCostModel.self, from: bytes) { models.append(model) }
        if let report = try? JSONDecoder().decode(MeasureReport.self, from: bytes),
            let fitted = LoaderCostModel.fit(report.measurements)
        {
            models.append(fitted)
        }
        if path.hasSuffix("negative-coefficient.json") || path.hasSuffix("schema-version-99.json") {
            #expect(models.isEmpty)
        }
        for model in models {
            for coefficient in [model.nsPerObject, model.nsPerRelativeRelocation, model.nsPerSymbolRelocation] {
                #expect(coefficient.isFinite && coefficient >= 0)
            }
        }
    }
}
