import PremainTestSupport
import XCTest

@testable import PremainJudge
@testable import PremainModel
@testable import PremainRender

/// Golden-file tests of the renderers with hand-built reports (never compiled binaries, so
/// they do not change with the compiler). `PREMAIN_UPDATE_GOLDEN=1 swift test` rewrites the
/// files in Tests/Golden; review the diff before committing.
final class RendererTests: XCTestCase {
    static func timing(_ samples: [Double]) -> TimeSummary {
        TimeSummary(samplesMs: samples) ?? .zero
    }

    static func finding(
        _ rule: String, _ severity: Severity, _ object: String, _ symbol: String?, _ message: String,
        figure: Double? = nil, threshold: Double? = nil, path: String? = nil,
        location: SourceLocation? = nil
    ) -> Finding {
        Finding(
            rule: rule, severity: severity,
            subject: .init(object: object, path: path ?? "lib/" + object, symbol: symbol),
            figure: figure, threshold: threshold, unit: figure == nil ? nil : "ms", message: message,
            advice: "Do the work lazily", location: location)
    }

    /// The checkout the hand-built reports' findings are placed in: run from its top folder,
    /// with the artifacts in build/ (findings' paths are lib/<object>, relative to it).
    static let scope = SourceScope(root: "/src/app", artifacts: ["build"], workingDirectory: "/src/app")

    /// A check report with a finding placed by DWARF, one by the build file, and one about a
    /// system library (not a SARIF result or an annotation, but in text and Markdown).
    static func checkReport() -> CheckReport {
        CheckReport(
            tool: ToolInfo(name: "premain", version: "0.1.0"), inputs: ["build/app"],
            findings: [
                finding(
                    "textrel", .error, "libtextrel.so", nil, "libtextrel.so has text relocations",
                    location: SourceLocation(file: "/src/app/CMakeLists.txt", line: 8)),
                finding(
                    "heavy_static_initializer", .warning, "libinit.so", "_GLOBAL__sub_I_registry.cpp",
                    "Static initializer _GLOBAL__sub_I_registry.cpp in libinit.so takes 20.009 ms (median), threshold 1.000 ms",
                    figure: 20.009, threshold: 1, location: SourceLocation(file: "/src/app/src/registry.cpp", line: 25)),
                finding(
                    "copy_relocations", .note, "libstdc++.so.6", nil, "libstdc++.so.6 has 2 copy relocations",
                    path: "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
            ],
            failOn: .error, errors: [])
    }

    /// A diff of the C pair: libextra.so added with a 1 ms constructor, libcore.so exporting more.
    static func diffReport(names: (object: String, symbol: String) = ("libextra.so", "premain_extra_ctor"))
        -> DiffReport
    {
        let detector = ChangeDetector()
        let baseMain = (0..<20).map { 3.0 + Double($0 % 5) * 0.05 }
        let headMain = baseMain.map { $0 + 1.3 }
        let baseCore = (0..<20).map { 2.0 + Double($0 % 4) * 0.01 }
        let headCore = baseCore.map { $0 + 0.01 }
        let headExtra = (0..<20).map { 1.0 + Double($0 % 3) * 0.01 }
        let measured = [
            MeasuredDelta(
                scope: .milestone, subject: "main", base: timing(baseMain), head: timing(headMain),
                result: detector.compare(base: timing(baseMain), head: timing(headMain), seedSalt: 1)),
            MeasuredDelta(
                scope: .object, subject: "libcore.so", base: timing(baseCore), head: timing(headCore),
                result: detector.compare(base: timing(baseCore), head: timing(headCore), seedSalt: 2)),
            MeasuredDelta(
                scope: .object, subject: names.object, base: nil, head: timing(headExtra),
                result: detector.compare(base: nil, head: timing(headExtra))),
            MeasuredDelta(
                scope: .function, subject: names.symbol, object: names.object, base: nil, head: timing(headExtra),
                result: detector.compare(base: nil, head: timing(headExtra))),
        ]
        let objects = [
            ObjectDelta(
                name: "app", status: .changed, kind: .pieExecutable, place: .project,
                neededAdded: [names.object, "libm.so.6"],
                relocations: [
                    CountDelta(name: "relative", base: 8, head: 8), CountDelta(name: "total", base: 16, head: 19),
                    CountDelta(name: "plt", base: 8, head: 11),
                ],
                exports: CountDelta(name: "exports", base: 0, head: 0),
                imports: CountDelta(name: "imports", base: 13, head: 16),
                initializers: CountDelta(name: "initializers", base: 0, head: 0),
                fileSize: CountDelta(name: "fileSize", base: 16_000, head: 16_200)),
            ObjectDelta(
                name: "libcore.so", status: .changed, kind: .sharedLibrary, place: .project,
                exports: CountDelta(name: "exports", base: 11, head: 31),
                imports: CountDelta(name: "imports", base: 5, head: 5),
                initializers: CountDelta(name: "initializers", base: 1, head: 1),
                fileSize: CountDelta(name: "fileSize", base: 15_000, head: 16_000)),
            ObjectDelta(
                name: names.object, status: .added, kind: .sharedLibrary, place: .project,
                relocations: [CountDelta(name: "total", base: nil, head: 15)],
                exports: CountDelta(name: "exports", base: nil, head: 2),
                imports: CountDelta(name: "imports", base: nil, head: 11),
                initializers: CountDelta(name: "initializers", base: nil, head: 1), initializersAdded: [names.symbol],
                fileSize: CountDelta(name: "fileSize", base: nil, head: 15_500)),
            ObjectDelta(
                name: "libutil.so", status: .unchanged, kind: .sharedLibrary, place: .project,
                relocations: [CountDelta(name: "total", base: 4, head: 4)],
                exports: CountDelta(name: "exports", base: 3, head: 3),
                imports: CountDelta(name: "imports", base: 2, head: 2),
                initializers: CountDelta(name: "initializers", base: 0, head: 0),
                fileSize: CountDelta(name: "fileSize", base: 8_000, head: 8_000)),
            ObjectDelta(
                name: "libm.so.6", status: .added, place: .system, mappedBy: ["app"],
                exports: CountDelta(name: "exports", base: nil, head: nil),
                imports: CountDelta(name: "imports", base: nil, head: nil),
                initializers: CountDelta(name: "initializers", base: nil, head: nil),
                fileSize: CountDelta(name: "fileSize", base: nil, head: nil)),
        ]
        let findings = FindingsDelta(
            new: [
                finding(
                    "heavy_static_initializer", .warning, names.object, names.symbol,
                    "Static initializer \(names.symbol) in \(names.object) takes 1.010 ms (median), threshold 1.000 ms",
                    figure: 1.01, threshold: 1, location: SourceLocation(file: "/src/app/extra.c", line: 12))
            ],
            fixed: [finding("textrel", .error, "libold.so", nil, "libold.so has text relocations")],
            unchanged: [
                finding(
                    "many_static_initializers", .warning, "libcore.so", nil, "libcore.so runs 3 static initializers")
            ])
        let conditions = ["cpu": "pinned to 1", "machine": "x86-64, 2 cores"]
        let baseTimeline = DiffBuilder.timeline(
            Milestones([.main: timing(baseMain)]),
            [.init(path: "lib/libcore.so", role: .library, initializers: timing(baseCore))])
        let headTimeline = DiffBuilder.timeline(
            Milestones([.main: timing(headMain)]),
            [
                .init(path: "lib/" + names.object, role: .library, initializers: timing(headExtra)),
                .init(path: "lib/libcore.so", role: .library, initializers: timing(headCore)),
            ])
        return DiffReport(
            tool: ToolInfo(name: "premain", version: "0.1.0"),
            verdict: DiffBuilder().verdictFor(
                findings: findings, measured: measured,
                backing: DiffBuilder().deterministicBacking(objects: objects, base: RuleInput(), head: RuleInput())),
            base: .init(
                label: "artifacts/base", objects: 2, runs: 20, cold: false, conditions: conditions,
                timeline: baseTimeline),
            head: .init(
                label: "artifacts/head", objects: 3, runs: 20, cold: false, conditions: conditions,
                timeline: headTimeline),
            objects: objects, closures: [CountDelta(name: "app", base: 4, head: 6)], measured: measured,
            findings: findings,
            settings: .init(alpha: 0.01, minEffectMs: 0.5, minEffectPercent: 5, failOn: .error))
    }

    func golden(_ name: String, _ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        if let mismatch = try GoldenFiles.mismatch(name, text) { XCTFail(mismatch, file: file, line: line) }
    }

    func testDiffMarkdownGolden() throws {
        let markdown = DiffMarkdownRenderer.render(Self.diffReport())
        try golden("diff.md", markdown)
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines[0], "<!-- premain-report -->")
        XCTAssertEqual(lines[1], "## premain: start-up report")
        XCTAssertTrue(lines[3].hasPrefix("❌ **Start-up regressed**"), String(lines[3]))
        XCTAssertTrue(markdown.contains("```mermaid\ngantt"))
        XCTAssertTrue(markdown.contains("🔺 regression"))
        XCTAssertTrue(markdown.contains("🆕 new"))
        XCTAssertTrue(markdown.contains("✅ fixed"))
        XCTAssertTrue(markdown.contains("11 → 31, +20 (+181.8 %) ▲"))
        XCTAssertEqual(
            markdown.components(separatedBy: "<details").count, markdown.components(separatedBy: "</details>").count)
    }

    func testDiffTextAndJSONGolden() throws {
        try golden("diff.txt", DiffTextRenderer.render(Self.diffReport()))
        try golden(
            "diff.sarif", try SARIFRenderer.render(Self.diffReport(), catalog: RuleEngine().catalog, scope: Self.scope))
        try golden("diff.github", GitHubAnnotationRenderer.render(Self.diffReport(), scope: Self.scope))
    }

    func testCheckRenderersGolden() throws {
        let report = Self.checkReport()
        try golden("check.txt", FindingsTextRenderer.render(report))
        try golden("check.md", CheckMarkdownRenderer.render(report))
        try golden("check.sarif", try SARIFRenderer.render(report, catalog: RuleEngine().catalog, scope: Self.scope))
        try golden("check.github", GitHubAnnotationRenderer.render(report, scope: Self.scope))
    }

    func testSARIFIsWellFormed() throws {
        let text = try SARIFRenderer.render(Self.diffReport(), catalog: RuleEngine().catalog, scope: Self.scope)
        XCTAssertEqual(try SARIFValidation.schemaViolations(text), [])
        let document = try XCTUnwrap(JSONValue.parse(text))
        XCTAssertEqual(document["version"], .string("2.1.0"))
        XCTAssertEqual(document["$schema"], .string(SARIFRenderer.schema))
        guard case .array(let runs)? = document["runs"], let run = runs.first,
            case .array(let rules)? = run["tool"]?["driver"]?["rules"], case .array(let results)? = run["results"]
        else {
            return XCTFail("runs[0].tool.driver.rules and results expected")
        }
        XCTAssertEqual(rules.count, allRules.count + BudgetChecker.descriptions.count)
        XCTAssertEqual(results.count, 2, "the fixed finding is left out")
        for result in results {
            guard case .string(let rule)? = result["ruleId"], case .number(let index)? = result["ruleIndex"] else {
                return XCTFail("ruleId and ruleIndex expected")
            }
            XCTAssertEqual(rules[Int(index)]["id"], .string(rule))
            XCTAssertNotNil(result["partialFingerprints"]?["premainFingerprint/v1"])
        }
        XCTAssertEqual(results.map { $0["baselineState"]?.displayText }, ["new", "unchanged"])
    }

    func testHostileNamesCannotInjectMarkdownHTMLOrMentions() throws {
        let hostile =
            "@everyone <script>alert(1)</script> | `rm -rf` [x](http://evil.example) **bold** #123 www.evil.example\n# Heading <!-- premain-report -->"
        let report = Self.diffReport(names: (object: "lib" + hostile + ".so", symbol: hostile))
        let markdown = DiffMarkdownRenderer.render(report)
        // Compare bytes: String.contains would treat "w" + zero-width joiner as "w".
        func has(_ needle: String) -> Bool { Array(markdown.utf8).firstRange(of: Array(needle.utf8)) != nil }
        XCTAssertFalse(has("<script"), "raw HTML")
        XCTAssertFalse(has("@everyone"), "a mention")
        XCTAssertFalse(has("](http"), "a link")
        XCTAssertFalse(has("http://"), "an autolink")
        // Outside the Mermaid block (a code block: no Markdown there) every backtick is escaped.
        var prose = markdown
        if let start = prose.range(of: "```mermaid"),
            let end = prose.range(of: "```\n\n</details>", range: start.upperBound..<prose.endIndex)
        {
            prose.removeSubrange(start.lowerBound..<end.upperBound)
        }
        let characters = Array(prose)
        for index in characters.indices where characters[index] == "`" {
            XCTAssertTrue(index > 0 && characters[index - 1] == "\\", "unescaped backtick at \(index)")
        }
        XCTAssertNil(Array(prose.utf8).firstRange(of: Array("www.evil".utf8)), "a www autolink")
        XCTAssertFalse(has("**bold"), "emphasis")
        XCTAssertFalse(has(" #123"), "an issue reference")
        XCTAssertEqual(markdown.components(separatedBy: "<!-- premain-report -->").count, 2, "the marker appears once")
        XCTAssertFalse(has("\n# Heading"), "a heading from a newline in a name")
        // Every table row keeps its column count: no unescaped "|" in cells.
        var columns: Int?
        for line in markdown.split(separator: "\n") {
            if line.hasPrefix("|---") || line.hasPrefix("|--") {
                columns = line.filter { $0 == "|" }.count
                continue
            }
            guard line.hasPrefix("|"), let expected = columns else {
                if !line.hasPrefix("|") { columns = nil }
                continue
            }
            XCTAssertEqual(line.filter { $0 == "|" }.count, expected, String(line))
        }
        // The Mermaid chart holds only safe label characters.
        if let start = markdown.range(of: "```mermaid\n"),
            let end = markdown.range(of: "```\n", range: start.upperBound..<markdown.endIndex)
        {
            let chart = markdown[start.upperBound..<end.lowerBound]
            XCTAssertFalse(chart.contains("<"))
            XCTAssertFalse(chart.contains("@"))
            XCTAssertFalse(chart.contains("#"))
        } else {
            XCTFail("no mermaid chart")
        }
        try golden("diff-hostile.md", markdown)
    }

    func testMarkdownStaysUnderTheLimitWithHugeReports() {
        var report = Self.diffReport()
        let many = (0..<3000).map { index in
            Self.finding(
                "heavy_static_initializer", .warning, "lib\(index).so", String(repeating: "x", count: 200) + "\(index)",
                "Static initializer number \(index) takes long " + String(repeating: "y", count: 300))
        }
        report.findings = FindingsDelta(new: many, fixed: many, unchanged: many)
        report.objects += (0..<3000).map { index in
            ObjectDelta(
                name: "libmany\(index).so", status: .added, exports: CountDelta(name: "exports", base: nil, head: 1),
                imports: CountDelta(name: "imports", base: nil, head: 1),
                initializers: CountDelta(name: "initializers", base: nil, head: 1),
                initializersAdded: ["init\(index)"], fileSize: CountDelta(name: "fileSize", base: nil, head: 1))
        }
        for top in [10, 1000] {
            let markdown = DiffMarkdownRenderer.render(report, top: top)
            XCTAssertLessThanOrEqual(markdown.count, 65_000)
            XCTAssertTrue(markdown.hasPrefix("<!-- premain-report -->\n## premain: start-up report"))
            XCTAssertTrue(markdown.hasSuffix("</sub>\n"), "the footer survives")
            XCTAssertEqual(
                markdown.components(separatedBy: "<details").count, markdown.components(separatedBy: "</details>").count
            )
            if top == 10 { XCTAssertTrue(markdown.contains("| …and 5990 more |"), "top N with the rest counted") }
            if top == 1000 { XCTAssertTrue(markdown.contains("Some sections were left out")) }
        }
    }

    func testMarkdownEscapeKeepsOrdinaryNamesReadable() {
        XCTAssertEqual(MarkdownEscape.text("libstdc++.so.6"), "libstdc\\+\\+.so.6")
        XCTAssertEqual(
            MarkdownEscape.text("std::ios_base::Init::Init()"), "std\\:\\:ios\\_base\\:\\:Init\\:\\:Init\\(\\)")
        XCTAssertEqual(MarkdownEscape.text("a\u{202E}b"), "aU+202Eb")
        XCTAssertEqual(MarkdownEscape.text(String(repeating: "a", count: 400)).count, 301)
        XCTAssertEqual(MarkdownEscape.mermaid("init lib:x;y#z"), "init lib_x_y_z")
    }
}
