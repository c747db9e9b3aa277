import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainRender
import PremainTestSupport
import Testing

@testable import PremainModel

/// What made a compared start-up change (`CauseFinder`, `CompareSession`'s explanation and its
/// renderings), on recorded traces and scripted launches: nothing is run or timed.
struct CauseFinderTests {
    // MARK: recorded traces

    static let keywordTable = "$s4Tool12keywordTable_WZ"
    static let ruleCountDefault = "$s4Tool9ruleCount8registrySiAA8RegistryV_tFfA_"

    /// One traced run of `executable`: the program's own `main`-path work plus libc's
    /// initializer, with `extra` added.
    static func run(
        _ executable: String, lazyMs: Double?, libcMs: Double = 0.05, defaultArgumentMs: Double? = nil,
        succeeded: Bool = true
    ) -> TracedRun {
        var functions = [
            TracedRun.Function(
                object: "/usr/lib/x86_64-linux-gnu/libc.so.6", symbol: "init_cacheinfo", demangled: nil,
                kind: .staticInitializer, inclusiveMs: libcMs, exclusiveMs: libcMs, calls: 1)
        ]
        if let lazyMs {
            functions.append(
                TracedRun.Function(
                    object: executable, symbol: keywordTable,
                    demangled: "one-time initialization function for keywordTable",
                    kind: .swiftLazyGlobal, source: SourceLocation(file: "/src/Sources/Tool/Keywords.swift", line: 12),
                    inclusiveMs: lazyMs, exclusiveMs: lazyMs, calls: 1))
        }
        if let defaultArgumentMs {
            functions.append(
                TracedRun.Function(
                    object: executable, symbol: ruleCountDefault,
                    demangled: "default argument 0 of Tool.ruleCount(registry: Tool.Registry) -> Swift.Int",
                    kind: .swiftDefaultArgument,
                    source: SourceLocation(file: "/src/Sources/Tool/Rules.swift", line: 40),
                    inclusiveMs: defaultArgumentMs, exclusiveMs: defaultArgumentMs, calls: 1))
        }
        return TracedRun(
            executable: executable, functions: functions, milestones: ["main": 5, "firstOutput": 9],
            succeeded: succeeded)
    }

    /// Base and head in different folders (`work-base`, `work-slow`): the same program, paired
    /// by role, never by path.
    static func pair(runs: Int, headLazyMs: (Int) -> Double?, baseLazyMs: (Int) -> Double? = { _ in nil }) -> TracedPair
    {
        TracedPair(
            base: (0..<runs).map {
                run("/ci/work-base/tool", lazyMs: baseLazyMs($0), libcMs: 0.05 + Double($0 % 3) * 0.001)
            },
            head: (0..<runs).map {
                run("/ci/work-slow/tool", lazyMs: headLazyMs($0), libcMs: 0.05 + Double($0 % 2) * 0.001)
            },
            biasMs: 0.009, seconds: 1.5)
    }

    static let finder = CauseFinder(settings: CompareSettings())

    @Test func newLazyGlobalIsTheCauseWithItsShareAndWhatIsLeftUnexplained() throws {
        let traced = Self.pair(runs: 8, headLazyMs: { 51.7 + Double($0 % 4) * 0.1 })
        let (causes, explanation) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: 54.4, blocks: [], traced: traced, instructions: nil,
            base: "/ci/work-base/tool", head: "/ci/work-slow/tool")
        #expect(causes.count == 1)
        let cause = try #require(causes.first)
        #expect(cause.kind == .swiftLazyGlobal && cause.change == .new && cause.evidence == .traced)
        #expect(cause.object == StartupCause.executableRole && cause.function == "keywordTable")
        #expect(cause.symbol == Self.keywordTable && cause.source?.line == 12)
        #expect(cause.base == nil && cause.head?.samplesMs.count == 8)
        #expect(cause.difference.lowMs > 51 && cause.difference.highMs < 52.2 && cause.difference.pairs == 8)
        #expect(abs(cause.share - cause.difference.medianMs / 54.4) < 1e-12)
        // What the causes do not explain is said, never spread over them.
        #expect(abs(explanation.explainedMs - cause.difference.medianMs) < 1e-12)
        #expect(abs(explanation.unexplainedMs - (54.4 - cause.difference.medianMs)) < 1e-12)
        #expect(explanation.quantity == .milestone(.firstOutput) && explanation.tracedRunsPerSide == 8)
        // libc's initializer moved by a microsecond: not named.
        #expect(!causes.contains { $0.object == "libc.so.6" })
    }

    @Test func functionsArePairedByRoleAndSymbolNotByFolder() throws {
        // The same function in both builds, 12 ms slower in head: one grown cause, not a
        // removed one and an added one.
        let traced = Self.pair(
            runs: 8, headLazyMs: { 24 + Double($0 % 2) * 0.05 }, baseLazyMs: { 12 + Double($0 % 3) * 0.05 })
        let (causes, _) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: 12.2, blocks: [], traced: traced,
            instructions: nil, base: "/ci/work-base/tool", head: "/ci/work-slow/tool")
        #expect(causes.map(\.change) == [.grown])
        #expect(causes.first?.base?.medianMs ?? 0 > 11.9 && causes.first?.head?.medianMs ?? 0 > 23.9)
        #expect(CauseFinder.role("/ci/work-slow/tool", executable: "/ci/work-slow/tool") == StartupCause.executableRole)
        #expect(CauseFinder.role("/usr/lib/libfoo.so.1", executable: "/ci/work-slow/tool") == "libfoo.so.1")
    }

    @Test func causesAreRankedByShareAndAnImprovementIsExplainedTheSameWay() throws {
        var traced = Self.pair(runs: 8, headLazyMs: { _ in 5 }, baseLazyMs: { _ in 30 })
        for index in traced.head.indices {
            traced.head[index] = Self.run(
                "/ci/work-slow/tool", lazyMs: 5, defaultArgumentMs: 2 + Double(index % 2) * 0.01)
            traced.base[index] = Self.run("/ci/work-base/tool", lazyMs: 30, defaultArgumentMs: 10)
        }
        let (causes, explanation) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: -33.5, blocks: [], traced: traced,
            instructions: nil, base: "/ci/work-base/tool", head: "/ci/work-slow/tool")
        #expect(causes.map(\.kind) == [.swiftLazyGlobal, .swiftDefaultArgument])
        #expect(causes.map(\.change) == [.shrunk, .shrunk])
        #expect(causes[0].share > causes[1].share && causes[0].share > 0.7)
        #expect(causes[1].function == "`registry` of Tool.ruleCount(registry:)")
        #expect(explanation.explainedMs < -32.9 && explanation.explainedMs > -33.1)
    }

    @Test func workAfterMainDoesNotExplainTimeToMain() {
        let traced = Self.pair(runs: 8, headLazyMs: { _ in 50 })
        let (causes, _) = Self.finder.explain(
            quantity: .milestone(.main), changeMs: 3, blocks: [], traced: traced, instructions: nil,
            base: "/ci/work-base/tool", head: "/ci/work-slow/tool")
        #expect(causes.isEmpty)
    }

    @Test func aNoisyFunctionWhoseIntervalHoldsZeroIsNotACause() {
        // ±20 ms around no change: the interval straddles zero.
        let traced = Self.pair(runs: 8, headLazyMs: { $0 % 2 == 0 ? 70 : 30 }, baseLazyMs: { $0 % 2 == 0 ? 30 : 70 })
        let (causes, explanation) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: 5, blocks: [], traced: traced,
            instructions: nil, base: "/ci/work-base/tool", head: "/ci/work-slow/tool")
        #expect(causes.isEmpty && explanation.explainedMs == 0)
    }

    @Test func fewTracedPairsGiveALowerLevelAndSaySo() throws {
        let traced = Self.pair(runs: 3, headLazyMs: { 20 + Double($0) * 0.1 })
        let (causes, explanation) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: 20, blocks: [], traced: traced,
            instructions: nil, base: "/ci/work-base/tool", head: "/ci/work-slow/tool")
        let cause = try #require(causes.first)
        #expect(cause.difference.level == 0.75 && cause.difference.pairs == 3)
        #expect(explanation.notes.contains { $0.contains("3 traced pairs") && $0.contains("--explain-runs") })
        #expect(CauseFinder.pairsForLevel(0.95) == 6)
    }

    @Test func failedTracedRunsAreLeftOutOfThePairs() throws {
        var traced = Self.pair(runs: 8, headLazyMs: { _ in 10 })
        traced.head[2].succeeded = false
        traced.head[2].functions = []
        let (causes, _) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: 10, blocks: [], traced: traced,
            instructions: nil, base: "/ci/work-base/tool", head: "/ci/work-slow/tool")
        #expect(causes.first?.difference.pairs == 7)
    }

    // MARK: objects, from the loader's lines

    /// A launch whose loader maps `objects` (name, ms the mapping took) and runs `initializers`
    /// (path, ms), the program's own last.
    static func launch(objects: [(String, Double)], initializers: [(String, Double)], programMs: Double) -> LaunchSample
    {
        var timeline = LoaderTimeline(loaderStartMs: 0.3)
        var clock = 0.3
        for (name, ms) in objects {
            clock += ms
            timeline.objects.append(.init(name: name, neededBy: "app", mappedMs: clock))
        }
        timeline.loaderDoneMs = clock + 0.2
        clock += 0.2
        for (path, ms) in initializers {
            timeline.initializers.append(.init(path: path, startMs: clock, durationMs: ms, isProgram: false))
            clock += ms
        }
        timeline.initializers.append(.init(path: "./app", startMs: clock, durationMs: programMs, isProgram: true))
        clock += programMs
        timeline.mainMs = clock
        var sample = LaunchSample(
            birthNs: 0, instrumented: true, loader: timeline, firstOutputMs: clock + 0.1,
            firstOutputStream: .stdout, exitMs: clock + 0.2,
            outcome: LaunchOutcome(kind: .success, exitStatus: 0, message: "exited with status 0"),
            stderrHead: "")
        sample.cpuMs = clock
        return sample
    }

    static func blocks(_ count: Int, base: (Int) -> LaunchSample, head: (Int) -> LaunchSample) -> [PairedBlock] {
        (0..<count).map { index in
            PairedBlock(
                baseFirst: index % 2 == 0, base: [base(2 * index), base(2 * index + 1)],
                head: [head(2 * index), head(2 * index + 1)])
        }
    }

    @Test func aNewLibraryIsExplainedByItsInitializersAndItsLoading() throws {
        let blocks = Self.blocks(
            6,
            base: { run in
                Self.launch(
                    objects: [("libcore.so", 0.10 + Double(run % 3) * 0.001), ("libc.so.6", 0.12)],
                    initializers: [
                        ("/w/base/lib/libcore.so", 2.0 + Double(run % 2) * 0.01),
                        ("/lib/x86_64-linux-gnu/libc.so.6", 0.02),
                    ],
                    programMs: 0.01)
            },
            head: { run in
                Self.launch(
                    objects: [
                        ("libcore.so", 0.10 + Double(run % 2) * 0.001), ("libextra.so", 0.09 + Double(run % 3) * 0.002),
                        ("libc.so.6", 0.12),
                    ],
                    initializers: [
                        ("/w/head/lib/libextra.so", 1.0 + Double(run % 3) * 0.01),
                        ("/w/head/lib/libcore.so", 2.0 + Double(run % 3) * 0.01),
                        ("/lib/x86_64-linux-gnu/libc.so.6", 0.02),
                    ], programMs: 0.01)
            })
        let (causes, explanation) = Self.finder.explain(
            quantity: .milestone(.main), changeMs: 1.12, blocks: blocks, traced: nil,
            instructions: nil, base: "/w/base/app", head: "/w/head/app")
        #expect(causes.map(\.kind) == [.objectInitializers, .objectMapping])
        #expect(causes.allSatisfy { $0.object == "libextra.so" && $0.change == .new && $0.evidence == .loader })
        #expect(causes[0].difference.medianMs > 0.99 && causes[0].difference.medianMs < 1.03)
        #expect(causes[0].objectPath == "/w/head/lib/libextra.so")
        // libcore.so is in both, paired by file name across the two folders: no cause.
        #expect(!causes.contains { $0.object == "libcore.so" })
        #expect(explanation.explainedMs > 1.08 && explanation.explainedMs < 1.13)
        // Loading happens before the loader is done; initializers after it.
        let (loaderOnly, _) = Self.finder.explain(
            quantity: .milestone(.loaderDone), changeMs: 0.09, blocks: blocks, traced: nil,
            instructions: nil, base: "/w/base/app", head: "/w/head/app")
        #expect(loaderOnly.map(\.kind) == [.objectMapping])
    }

    @Test func aTracedInitializerStandsForItsObjectsLoaderTime() throws {
        let blocks = Self.blocks(
            6,
            base: { _ in
                Self.launch(
                    objects: [("libc.so.6", 0.12)], initializers: [("/lib/x86_64-linux-gnu/libc.so.6", 0.02)],
                    programMs: 1)
            },
            head: { run in
                Self.launch(
                    objects: [("libc.so.6", 0.12)], initializers: [("/lib/x86_64-linux-gnu/libc.so.6", 0.02)],
                    programMs: 3 + Double(run % 3) * 0.01)
            })
        func ctor(_ executable: String, _ ms: Double) -> TracedRun {
            TracedRun(
                executable: executable,
                functions: [
                    .init(
                        object: executable, symbol: "_GLOBAL__sub_I_registry.cpp",
                        demangled: "_GLOBAL__sub_I_registry.cpp",
                        kind: .cxxTranslationUnitInitializer,
                        source: SourceLocation(file: "/src/registry.cpp", line: 30),
                        inclusiveMs: ms, exclusiveMs: ms, calls: 1)
                ], milestones: [:], succeeded: true)
        }
        let traced = TracedPair(
            base: (0..<8).map { ctor("/w/base/app", 1 + Double($0 % 2) * 0.01) },
            head: (0..<8).map { ctor("/w/head/app", 3 + Double($0 % 3) * 0.01) }, biasMs: 0.01, seconds: 1)
        let (causes, explanation) = Self.finder.explain(
            quantity: .milestone(.main), changeMs: 2.0, blocks: blocks, traced: traced,
            instructions: nil, base: "/w/base/app", head: "/w/head/app")
        // One cause, the function (with its line), not the function and its object's total again.
        #expect(causes.map(\.kind) == [.cxxTranslationUnitInitializer])
        #expect(causes.first?.change == .grown && causes.first?.source?.line == 30)
        #expect(explanation.explainedMs < 2.05)
    }

    // MARK: the session

    @Test func sessionExplainsARegressionWithTheTracesItAskedFor() throws {
        final class Calls: @unchecked Sendable {
            var traced: [(String, String, TraceWindowEnd, Int)] = []
        }
        let calls = Calls()
        // Head's main is on time; its first output comes 50 ms later (work after main).
        let launcher = ScriptedLauncher { path, index in
            var sample = CompareTests.launch(mainMs: 5 + Double(index % 3) * 0.01, cpuMs: path == "/b/tool" ? 54 : 4)
            if path == "/b/tool" {
                sample.firstOutputMs = (sample.firstOutputMs ?? 0) + 50
                sample.exitMs = (sample.exitMs ?? 0) + 50
            }
            return sample
        }
        var session = CompareTests.session(launcher)
        session.traceBoth = { base, head, _, _, options, _ in
            calls.traced.append((base, head, options.window, options.runs))
            return Self.pair(runs: options.runs, headLazyMs: { 49.9 + Double($0 % 2) * 0.1 })
        }
        var options = CompareTests.options()
        options.explainTrace.biasMs = 0.01
        options.explainTrace.runs = 6
        let report = try session.compare(
            base: "/a/tool", head: "/b/tool", arguments: [], environment: [], options: options)
        #expect(report.verdict == .regression)
        #expect(calls.traced.count == 1 && calls.traced.first?.0 == "/a/tool" && calls.traced.first?.3 == 6)
        let decided = try #require(report.decidingTime)
        #expect(decided.quantity == .milestone(.firstOutput) || decided.quantity == .milestone(.exit))
        #expect(calls.traced.first?.2 == decided.quantity.traceWindow)
        #expect(report.causes?.first?.function == "keywordTable")
        #expect(report.explanation?.quantity == decided.quantity)
        // The JSON carries the causes; an old report without them still decodes.
        let decoded = try JSONDecoder().decode(CompareReport.self, from: Data(try JSONRenderer.render(report).utf8))
        #expect(decoded.causes == report.causes && decoded.explanation == report.explanation)
        var old = report
        old.causes = nil
        old.explanation = nil
        #expect(
            try JSONDecoder().decode(CompareReport.self, from: Data(try JSONRenderer.render(old).utf8)).causes == nil)

        // No change: no trace, no cause claimed; --no-explain never traces.
        calls.traced = []
        let steady = ScriptedLauncher { _, index in CompareTests.launch(mainMs: 5 + Double(index % 3) * 0.01, cpuMs: 4)
        }
        var quiet = CompareTests.session(steady)
        quiet.traceBoth = session.traceBoth
        let same = try quiet.compare(base: "/a/tool", head: "/b/tool", arguments: [], environment: [], options: options)
        #expect(same.verdict == .noChange && same.causes == nil && calls.traced.isEmpty)
        options.explain = .never
        let never = try session.compare(
            base: "/a/tool", head: "/b/tool", arguments: [], environment: [], options: options)
        #expect(never.causes == nil && calls.traced.isEmpty)
        // --explain on no change says what moved, but the headline claims nothing.
        options.explain = .always
        let asked = try quiet.compare(
            base: "/a/tool", head: "/b/tool", arguments: [], environment: [], options: options)
        #expect(asked.explanation != nil && calls.traced.count == 1)
        #expect(CauseText.claimed(asked).isEmpty)
    }

    @Test func aTraceThatCannotRunIsANoteAndTheLoadersFiguresStillCount() throws {
        let launcher = ScriptedLauncher { path, index in
            CompareTests.launch(
                mainMs: 5 + Double(index % 3) * 0.01 + (path == "/b/tool" ? 3 : 0), cpuMs: path == "/b/tool" ? 7 : 4)
        }
        var session = CompareTests.session(launcher)
        session.traceBoth = { _, _, _, _, _, _ throws(TraceError) in throw .commandNotFound("/b/tool") }
        var options = CompareTests.options()
        options.explainTrace.biasMs = 0.01
        let report = try session.compare(
            base: "/a/tool", head: "/b/tool", arguments: [], environment: [], options: options)
        #expect(report.verdict == .regression)
        #expect(report.explanation?.notes.contains { $0.hasPrefix("functions not traced: ") } == true)
        #expect(report.causes == [])
    }

    // MARK: rendering

    static func explainedReport() throws -> CompareReport {
        var report = CompareTests.report(CompareTests.blocks(30, headExtraMs: 54.4, headExtraCPUMs: 54))
        let traced = Self.pair(runs: 8, headLazyMs: { 51.7 + Double($0 % 4) * 0.1 })
        let (causes, explanation) = Self.finder.explain(
            quantity: .milestone(.main), changeMs: 54.4, blocks: [], traced: traced, instructions: nil,
            base: "/base/app", head: "/head/app")
        #expect(causes.isEmpty)  // a lazy global runs after main
        let (firstOutput, why) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: 54.4, blocks: [], traced: traced, instructions: nil,
            base: "/base/app", head: "/head/app")
        report.causes = firstOutput
        report.explanation = why
        _ = explanation
        return report
    }

    @Test func theHeadlineNamesTheDecidingQuantityAndTheTopCause() throws {
        let report = try Self.explainedReport()
        let scope = SourceScope(root: "/src", artifacts: [], workingDirectory: "/")
        let text = CompareTextRenderer.render(report, scope: scope)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("verdict: regression, "))
        #expect(lines[1].hasPrefix("  cause: keywordTable (new lazy global, Sources/Tool/Keywords.swift:12) takes 51."))
        #expect(text.contains("why (first output +54.400 ms; explained 51."))
        #expect(text.contains("unexplained: +2."))
        let markdown = CompareMarkdownRenderer.render(report, scope: scope)
        let headline = try #require(markdown.split(separator: "\n").first { $0.hasPrefix("❌") })
        #expect(headline.contains("— `keywordTable` (new lazy global, `Sources/Tool/Keywords.swift:12`) takes 51."))
        #expect(markdown.contains("**Why** — first output +54.400 ms, explained 51."))
        #expect(
            markdown.contains(
                "| `keywordTable` | new lazy global | tool | `Sources/Tool/Keywords.swift:12` |"))
        let html = HTMLReportRenderer.render(report)
        #expect(
            html.contains("<h2>Why</h2>")
                && html.contains("keywordTable (new lazy global, Keywords.swift:12) takes 51."))
        #expect(!html.contains("<executable>"))
    }

    @Test func aDefaultArgumentIsNamedByItsParameterInTheComment() throws {
        var report = CompareTests.report(CompareTests.blocks(30, headExtraMs: 30, headExtraCPUMs: 30))
        var traced = Self.pair(runs: 8, headLazyMs: { _ in nil })
        for index in traced.head.indices {
            traced.head[index] = Self.run("/head/app", lazyMs: nil, defaultArgumentMs: 60 + Double(index % 2) * 0.01)
            traced.base[index] = Self.run("/base/app", lazyMs: nil, defaultArgumentMs: 30)
        }
        (report.causes, report.explanation) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: 30, blocks: [], traced: traced, instructions: nil,
            base: "/base/app", head: "/head/app")
        let markdown = CompareMarkdownRenderer.render(report)
        #expect(
            markdown.contains(
                "— `registry` of `Tool.ruleCount(registry:)` (grown default argument, `Rules.swift:40`) grew by 30."))
        #expect(
            CompareTextRenderer.render(report).contains(
                "cause: `registry` of Tool.ruleCount(registry:) (grown default argument, Rules.swift:40)"))
    }

    @Test func causesBecomeCodeScanningResultsAtTheirLines() throws {
        let report = try Self.explainedReport()
        let scope = SourceScope(root: "/src", artifacts: [], workingDirectory: "/")
        let findings = CauseText.claimed(report).map { CauseText.finding($0, report: report) }
        let sarif = try SARIFRenderer.render(causes: findings, version: "0", scope: scope)
        #expect(try SARIFValidation.schemaViolations(sarif) == [])
        #expect(try SARIFValidation.absoluteURIs(sarif) == [])
        let log = try #require(try JSONSerialization.jsonObject(with: Data(sarif.utf8)) as? [String: Any])
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 1 && results.first?["ruleId"] as? String == "startup_regression_cause")
        let location = try #require(
            (results.first?["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
        #expect((location["artifactLocation"] as? [String: Any])?["uri"] as? String == "Sources/Tool/Keywords.swift")
        #expect((location["region"] as? [String: Any])?["startLine"] as? Int == 12)
        let message = try #require((results.first?["message"] as? [String: Any])?["text"] as? String)
        #expect(message.contains("95 % interval") && message.contains("of the first output change +54.400 ms"))
        let rules = try #require(
            ((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == ["startup_regression_cause"])
        let annotations = GitHubAnnotationRenderer.render(causes: findings, scope: scope)
        #expect(
            annotations.hasPrefix("::warning file=Sources/Tool/Keywords.swift,line=12,title=startup_regression_cause::")
        )
    }

    @Test func aDetectedDifferenceUnderTheThresholdIsSaidButStaysNoChange() throws {
        // +0.3 ms on a 5 ms launch: the interval excludes zero, the 0.5 ms threshold holds it.
        let report = CompareTests.report(CompareTests.blocks(30, headExtraMs: 0.3, headExtraCPUMs: 0.3, jitter: 0.02))
        #expect(report.verdict == .noChange)
        let main = try #require(report.times.first { $0.quantity == .milestone(.main) })
        #expect(main.result == .noChange && main.detectedUnderThreshold == true)
        #expect(
            report.reasons.contains {
                $0.contains("time to main +0.29") && $0.contains("detected, under the ±") && $0.hasSuffix("threshold")
            })
        #expect(CompareTextRenderer.render(report).contains("no change (detected, under threshold)"))
        #expect(CompareMarkdownRenderer.render(report).contains("no change (detected, under the threshold)"))
        // Issue 36, item 2: the headline says what was seen, not "No start-up change".
        let headline = CompareMarkdownRenderer.render(report)
        #expect(
            headline.contains("✅ **No change beyond the ±0.500 ms threshold** (detected +0.29"), "\(headline)")
        #expect(headline.contains(" %, time to main)") && !headline.contains("No start-up change"), "\(headline)")
        #expect(try JSONRenderer.render(report).contains("\"detectedUnderThreshold\" : true"))
        #expect(CauseText.claimed(report).isEmpty)
    }

    // MARK: names

    @Test func namesAreTheSameEverywhere() {
        #expect(
            SwiftName.display(
                symbol: Self.ruleCountDefault,
                demangled: "default argument 0 of Tool.ruleCount(registry: Tool.Registry) -> Swift.Int")
                == "`registry` of Tool.ruleCount(registry:)")
        #expect(
            SwiftName.display(symbol: Self.keywordTable, demangled: "one-time initialization function for keywordTable")
                == "keywordTable")
        let labels = (0..<137).map { "option\($0): Swift.Int" }.joined(separator: ", ")
        #expect(
            SwiftName.display(symbol: "$s4Tool7OptionsV", demangled: "Tool.Options.init(\(labels)) -> Tool.Options")
                == "Tool.Options.init(…137 labels…)")
        #expect(
            SwiftName.display(symbol: "$s4Tool3runyyF", demangled: "Tool.run(verbose: Swift.Bool) -> ()")
                == "Tool.run(verbose:)")
        // C++ and C names as the demangler prints them.
        #expect(SwiftName.display(symbol: "_ZN3fooC2Ev", demangled: "foo::foo()") == "foo::foo()")
        #expect(SwiftName.display(symbol: "premain_extra_ctor", demangled: nil) == "premain_extra_ctor")
    }

    @Test func instructionDeltasPairTheExecutableByRoleAcrossFolders() {
        func counts(_ path: String, _ instructions: UInt64) -> InstructionCounts {
            InstructionCounts(
                beforeMain: 100_000 + instructions, toFirstOutput: nil, total: 200_000 + instructions, objects: [],
                functions: [
                    FunctionInstructions(
                        kind: .constructorFunction, object: path, symbol: "work_ctor",
                        demangled: nil, instructions: instructions, calls: 1)
                ])
        }
        let comparison = InstructionComparison(
            base: counts("/p/work-base/work-base", 12), head: counts("/p/work-slow/work-slow", 24),
            thresholdPercent: 2, baseExecutable: "/p/work-base/work-base",
            headExecutable: "/p/work-slow/work-slow")
        #expect(comparison.functions.count == 1)
        #expect(comparison.functions.first?.object == StartupCause.executableRole)
        #expect(comparison.functions.first?.base == 12 && comparison.functions.first?.head == 24)
    }
}

// MARK: budgets per function and per kind

extension CauseFinderTests {
    static func traced(_ symbol: String, _ demangled: String?, _ kind: TracedFunctionKind, _ ms: [Double])
        -> TracedFunction
    {
        TracedFunction(
            object: "/w/app", symbol: symbol, demangled: demangled, kind: kind, calls: 1, callsCapped: false,
            inclusive: TimeSummary(samplesMs: ms) ?? .zero, source: SourceLocation(file: "/src/K.swift", line: 12),
            inlinedInto: nil, unfinishedCalls: 0)
    }

    @Test func functionBudgetsByNameKindAndDefault() throws {
        let config = try ConfigParser.parse(
            #"""
            {"budgets": {"maxMsPerFunction": 10, "maxMsPerFunctionKind": {"swiftLazyGlobal": 5},
                         "functions": [{"name": "keywordTable", "maxMs": 60}, {"name": "fast_ctor", "maxMs": 0.5}]}}
            """#)
        #expect(config.budgets.maxMsPerFunction == 10 && config.budgets.maxMsPerFunctionKind[.swiftLazyGlobal] == 5)
        let functions = [
            Self.traced(
                Self.keywordTable, "one-time initialization function for keywordTable", .swiftLazyGlobal, [51, 52, 53]),
            Self.traced(
                "$s4Tool5otherSivpZ_WZ", "one-time initialization function for other", .swiftLazyGlobal, [6, 7, 6]),
            Self.traced("fast_ctor", nil, .constructorFunction, [0.9, 1.0, 1.1]),
            Self.traced("slow_ctor", nil, .constructorFunction, [11, 12, 13]),
            Self.traced("ok_ctor", nil, .constructorFunction, [3, 3, 3]),
        ]
        let findings = BudgetChecker.functionBudgets(functions, config.budgets)
        // keywordTable is under its own 60 ms; other over the kind's 5; fast_ctor over its own
        // 0.5; slow_ctor over the default 10; ok_ctor under it.
        #expect(
            findings.map { $0.subject.symbol ?? "" }.sorted() == [
                "fast_ctor", "one-time initialization function for other", "slow_ctor",
            ])
        let other = try #require(findings.first { $0.subject.symbol?.hasSuffix("other") == true })
        #expect(
            other.rule == "budget_function_time" && other.severity == .error && other.threshold == 5
                && other.figure == 6)
        #expect(
            other.message
                == "other (Swift lazy global) takes 6.000 ms on the start-up path (median of 3 traced runs), the budget is 5.000 ms (budgets.maxMsPerFunctionKind.swiftLazyGlobal)"
        )
        #expect(other.location?.line == 12)
        // check reads them from a trace report's functions.
        let input = RuleInput(functions: functions)
        #expect(BudgetChecker.check(input, config).filter { $0.rule == "budget_function_time" }.count == 3)
        // Mistakes name their key.
        #expect(throws: ConfigError.self) {
            try ConfigParser.parse(#"{"budgets": {"maxMsPerFunctionKind": {"lazy": 5}}}"#)
        }
        #expect(throws: ConfigError.self) { try ConfigParser.parse(#"{"budgets": {"functions": [{"name": "x"}]}}"#) }
    }

    @Test func prJudgesFunctionBudgetsOnTheFunctionsTheComparisonTraced() throws {
        var compare = PullRequestTests.regression
        let traced = Self.pair(runs: 8, headLazyMs: { 51.7 + Double($0 % 4) * 0.1 })
        (compare.causes, compare.explanation) = Self.finder.explain(
            quantity: .milestone(.firstOutput), changeMs: 54.4, blocks: [], traced: traced, instructions: nil,
            base: "/ci/work-base/tool", head: "/ci/work-slow/tool")
        var budgets = PremainConfig.Budgets()
        budgets.maxMsPerFunctionKind[.swiftLazyGlobal] = 5
        let report = PullRequestBuilder.report(
            diff: PullRequestTests.staticDiff(failing: false), measured: .compared(compare),
            command: ["tool"], skipped: .init(), budgets: budgets)
        let over = report.diff.findings.new.filter { $0.rule == "budget_function_time" }
        #expect(over.count == 1 && over.first?.message.hasPrefix("keywordTable (Swift lazy global) takes 51.") == true)
        #expect(report.causes == compare.causes)
        #expect(report.verdict.status == .regression)
        let unlimited = PullRequestBuilder.report(
            diff: PullRequestTests.staticDiff(failing: false), measured: .compared(compare),
            command: ["tool"], skipped: .init())
        #expect(!unlimited.diff.findings.new.contains { $0.rule == "budget_function_time" })
    }
}

// MARK: where a lazy global is

extension CauseFinderTests {
    /// An optimized build keeps no variable DIE for a module-level `let` initialized by a
    /// closure, and its initializer's first rows have line 0: the global is found at its
    /// declaration through its addressor's DIE.
    @Test func anOptimizedLazyGlobalIsFoundAtItsDeclaration() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "premain-lazy-line-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = """
            @main
            struct Tool {
                static func main() { print(keywordTable.count) }
            }

            /// A table built on first use.
            let keywordTable: [String] = (0..<2_000).map { "keyword-\\($0)" }
            """
        try source.write(toFile: folder + "/tool.swift", atomically: true, encoding: .utf8)
        let swiftc =
            FileManager.default.isExecutableFile(atPath: "/opt/swift/usr/bin/swiftc")
            ? "/opt/swift/usr/bin/swiftc" : "swiftc"
        let built = try Shell.run(
            [swiftc, "-O", "-g", "-parse-as-library", "-module-name", "tool", "tool.swift", "-o", "tool"], in: folder)
        try #require(built.status == 0, "swiftc failed: \(built.stderr)")
        let nm = try Shell.run(["nm", folder + "/tool"])
        let line = try #require(nm.stdout.split(separator: "\n").first { $0.hasSuffix(" $s4tool12keywordTable_WZ") })
        let address = try #require(UInt64(line.split(separator: " ")[0], radix: 16))
        let info = try #require(DebugInfo(path: folder + "/tool"))
        let declared = try #require(info.declaration(ofGlobalInitializedBy: "$s4tool12keywordTable_WZ", at: address))
        #expect(declared.line == 7 && declared.file.hasSuffix("tool.swift"), "\(declared)")
        // Not a once-function: nothing.
        #expect(info.declaration(ofGlobalInitializedBy: "$s4tool4ToolV4mainyyFZ", at: address) == nil)
    }
}

// MARK: static changes beside the measured ones

extension CauseFinderTests {
    @Test func prPutsTheStaticChangeBesideEachCause() throws {
        var compare = PullRequestTests.regression
        let interval = TimeDifference(PairedInterval(estimate: 1.0, low: 0.98, high: 1.02, level: 0.95, count: 24))
        compare.causes = [
            StartupCause(
                kind: .constructorFunction, change: .new, object: "libextra.so", function: "premain_extra_ctor",
                symbol: "premain_extra_ctor", base: nil, head: TimeSummary(samplesMs: [1, 1, 1]), difference: interval,
                share: 0.9, evidence: .traced),
            StartupCause(
                kind: .objectMapping, change: .new, object: "libextra.so", base: nil,
                head: TimeSummary(samplesMs: [0.1]),
                difference: interval, share: 0.1, evidence: .loader),
            StartupCause(
                kind: .objectMapping, change: .new, object: "libunknown.so", base: nil,
                head: TimeSummary(samplesMs: [0.1]),
                difference: interval, share: 0.1, evidence: .loader),
        ]
        let report = PullRequestBuilder.report(
            diff: PullRequestTests.staticDiff(), measured: .compared(compare), command: ["app"],
            skipped: .init())
        let causes = try #require(report.causes)
        #expect(causes[0].staticChange == "a new initializer of libextra.so")
        #expect(causes[1].staticChange == "new in head: needed by app; 15 relocations, 1 initializer")
        #expect(causes[2].staticChange == nil)
        #expect(report.compare?.causes == causes)
    }
}

extension CauseFinderTests {
    @Test func everyTracedKindHasOneCauseKindAndBack() {
        for kind in TracedFunctionKind.allCases {
            #expect(TracedFunctionKind(StartupCause.Kind(kind)) == kind, "\(kind)")
        }
        #expect(TracedFunctionKind(StartupCause.Kind.objectInitializers) == nil)
        #expect(TracedFunctionKind(StartupCause.Kind.objectMapping) == nil)
    }
}
