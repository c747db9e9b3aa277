import Foundation
import PremainTestSupport
import Testing

/// `--format html` on real programs: a trace of swift-frontend (nobody here wrote it), a
/// measure and a trace of the Swift sample, a compare of the work pair, an audit of
/// swift-frontend, a diff of the sample pair and a history. Every page must stand alone (always checked); with chromium
/// installed, each is screenshot into `.build/test-output/html` for people to look at.
@Suite(.serialized)
struct HTMLReportCLITests {
    /// view → page file, made once for both tests.
    static let pages: Result<[String: String], Chromium.ShellFailure> = {
        let folder = TestOutput.folder("html")
        var pages: [String: String] = [:]
        do {
            let swiftStartup = try Samples.path("swift-startup/swift-startup")
            let frontend =
                [
                    "/opt/swift/usr/bin/swift-frontend",
                    CLI.binary.replacingOccurrences(of: "/premain", with: "/swift-frontend"),
                ]
                .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/opt/swift/usr/bin/swift-frontend"
            let runs: [(String, [String], Set<Int32>)] = [
                ("trace-swift-frontend", ["trace", "--runs", "2", "--warmup", "0", "--", frontend, "--version"], [0]),
                ("trace-swift-startup", ["trace", "--runs", "2", "--warmup", "0", "--", swiftStartup], [0]),
                ("measure-swift-startup", ["measure", "--runs", "8", "--warmup", "1", "--", swiftStartup], [0]),
                (
                    "compare-work-pair",
                    [
                        "compare", "--min-runs", "16", "--max-runs", "24",
                        try Samples.path("pairs/work-base/app"), try Samples.path("pairs/work-head/app"),
                    ], [0, 2, 5]
                ),
                ("audit-swift-frontend", ["audit", frontend], [0]),
                ("diff-pairs", ["diff", try Samples.path("pairs/base"), try Samples.path("pairs/head")], [0, 1, 2]),
            ]
            for (name, arguments, statuses) in runs {
                let file = folder + "/\(name).html"
                // Options after the subcommand, before a `--` that starts the target's arguments.
                let result = try CLI.run([arguments[0], "--format", "html", "--output", file] + arguments.dropFirst())
                guard statuses.contains(result.status) else {
                    return .failure(
                        Chromium.ShellFailure(message: "\(name): status \(result.status): \(result.stderr)"))
                }
                pages[name] = file
            }
            let database = folder + "/history.sqlite"
            try? FileManager.default.removeItem(atPath: database)
            for (index, value) in HistoryData.series(stepAt: 17).enumerated() {
                let report = folder + "/history-report.json"
                try HistoryData.measureReport(mainMs: value).write(toFile: report, atomically: true, encoding: .utf8)
                _ = try CLI.run(["history", "add", report, "--db", database, "--commit", HistoryData.commit(index + 1)])
            }
            let history = folder + "/history.html"
            _ = try CLI.run(["history", "show", "--format", "html", "--db", database, "--output", history])
            pages["history"] = history
        } catch {
            return .failure(Chromium.ShellFailure(message: "\(error)"))
        }
        return .success(pages)
    }()

    @Test func pagesStandAloneAndDrawEachView() throws {
        let pages = try Self.pages.get()
        let markers = [
            "trace-swift-frontend": [
                "Flame chart of the start-up path", "Flame graph of the traced time", "swift-frontend", "<rect",
            ],
            "trace-swift-startup": ["Flame chart", "homeCatalog", "main.swift:79"],
            "measure-swift-startup": ["Launch waterfall", "libswiftCore.so", "phases, one row per run"],
            "compare-work-pair": [
                "Verdict: ", "Milestones and CPU time, base and head on one axis", "Launches of base and head",
            ],
            "audit-swift-frontend": ["class=\"tree\"", "libswiftCore.so", "relocations"],
            "diff-pairs": ["Verdict: ", "Objects that changed"],
            "history": ["<polyline", "c18"],
        ]
        #expect(Set(pages.keys) == Set(markers.keys))
        for (view, file) in pages {
            let page = try String(contentsOfFile: file, encoding: .utf8)
            #expect(
                HTMLReferenceCheck.externalReferences(in: page).isEmpty,
                "\(view): \(HTMLReferenceCheck.externalReferences(in: page))")
            for marker in markers[view] ?? [] { #expect(page.contains(marker), "\(view) lacks \(marker)") }
        }
    }

    @Test(
        .enabled(if: Chromium.path != nil, "chromium is not installed (apt-get install chromium): screenshots skipped"))
    func screenshotsOfEveryView() throws {
        let pages = try Self.pages.get()
        for (view, file) in pages.sorted(by: { $0.key < $1.key }) {
            let png = file.replacingOccurrences(of: ".html", with: ".png")
            try? FileManager.default.removeItem(atPath: png)
            try Chromium.screenshot(file, to: png, height: view.hasPrefix("trace") ? 1000 : 1400)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: png))
            #expect(bytes.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "\(view): not a PNG")
            #expect(bytes.count > 20_000, "\(view): a near-empty screenshot (\(bytes.count) bytes)")
            print("HTML report screenshot: \(png)")
        }
    }
}
