import PremainJudge
import PremainLaunch
import PremainModel
import PremainPullRequest
import PremainRender
import PremainTestSupport
import Testing

/// `premain pr`'s pipeline as a library: two sample folders read and diffed, the program in
/// them compared with a scripted launcher (times from the script, never from a clock).
@Suite struct PullRequestSessionTests {
    static func session(_ launcher: ScriptedLauncher) -> PullRequestSession {
        var session = PullRequestSession(launcher: launcher, closures: nil)
        session.compareSession = { launcher in
            var compare = CompareSession(launcher: launcher)
            compare.clock = { 0 }
            compare.loadAverage = { 0.2 }
            return compare
        }
        return session
    }

    static func request(run: String?) throws -> PullRequestSession.Request {
        var request = PullRequestSession.Request(
            sides: .folders(base: try Samples.path("pairs/base"), head: try Samples.path("pairs/head")), run: run)
        request.compare = CompareTests.options(minRuns: 8, maxRuns: 16)
        request.compare.explain = .never
        request.workingDirectory = try Samples.path("pairs")
        return request
    }

    @Test func aSlowerHeadIsARegressionOfTheProgramInBothFolders() throws {
        let launcher = ScriptedLauncher { path, _ in
            CompareTests.launch(mainMs: path.contains("/head/") ? 9 : 5, cpuMs: path.contains("/head/") ? 8 : 4)
        }
        let outcome = try Self.session(launcher).run(try Self.request(run: "app"))
        #expect(outcome.report.verdict.status == .regression)
        #expect(outcome.report.compare?.verdict == .regression)
        #expect(outcome.report.command == ["app"])
        #expect(outcome.problems.isEmpty && !outcome.programMissing)
        // Both programs launched, base first in the warm-up, each from its own folder.
        #expect(launcher.paths.first?.hasSuffix("pairs/base/app") == true)
        #expect(
            Set(
                launcher.paths.map {
                    $0.hasSuffix("pairs/base/app") ? "base" : $0.hasSuffix("pairs/head/app") ? "head" : $0
                })
                == ["base", "head"])
        #expect(!outcome.report.diff.objects.isEmpty)
    }

    /// Issue 35: pr over three declared launches of one program, of which only `format` pays a
    /// new cost in head: that row alone is a regression, the other two no change, the report
    /// leads with it and its verdict is the pull request's.
    @Test func overTheLaunchMatrixOnlyTheRowThatChangedIsARegression() throws {
        let launcher = ScriptedLauncher(answering: { request in
            let head = request.executablePath.contains("/head/")
            let slower = head && request.arguments.dropFirst().first == "format"
            return CompareTests.launch(mainMs: slower ? 9 : 5, cpuMs: slower ? 8 : 4)
        })
        var request = try Self.request(run: nil)
        let launches = [
            DeclaredLaunch(name: "version", run: ["app", "--version"], until: .firstOutput),
            DeclaredLaunch(name: "format", run: ["app", "format", "big.swift"], until: .exit),
            DeclaredLaunch(name: "serve", run: ["app", "serve"], until: .main, budgets: [.main: 4, .exit: 100]),
        ]
        request.rows = try launches.rows(named: []).map { try PlannedRow($0) }
        let outcome = try Self.session(launcher).run(request)
        let report = outcome.report
        #expect(report.verdict.status == .regression, "\(report.verdict.reasons)")
        #expect(report.launches?.map(\.launch) == ["version", "format", "serve"])
        #expect(report.launches?.map(\.outcome) == [.noChange, .regression, .noChange])
        #expect(report.compare?.launch == "format")
        #expect(report.verdict.reasons.first?.hasPrefix("launch format: regression: ") == true)
        #expect(report.verdict.reasons.contains("2 of 3 launch rows unchanged"))
        // serve's own budget: main at 4 ms, head's median is 5 ms; its exit budget holds.
        let budgets = report.diff.findings.new.filter { $0.rule == "budget_launch_median" }
        #expect(budgets.map(\.subject.symbol) == ["serve"])
        #expect(
            budgets.first?.message.hasPrefix("launch serve reaches main after 5.000 ms in head (median of ") == true)
        // Every row's launches are interleaved with the others' and each reached its own end.
        let arguments = Set(launcher.requests.map { $0.arguments.dropFirst().first ?? "" })
        #expect(arguments == ["--version", "format", "serve"])
        let markdown = PullRequestMarkdownRenderer.render(report)
        #expect(markdown.contains("**Launch matrix**: 1 row of 3 changed"), "\(markdown)")
        #expect(markdown.contains("| `format` | regression |"))
        #expect(markdown.contains("2 launches unchanged: `version`, `serve`."))
        #expect(markdown.contains("**Start-up regressed** for launch format \\(app format big.swift\\)"))
        #expect(PullRequestTextRenderer.render(report).contains("launch matrix: 1 row of 3 changed"))
        // A launch whose program is in neither folder is named, nothing launched.
        var missing = try Self.request(run: nil)
        missing.rows = try [DeclaredLaunch(name: "gone", run: ["nope"])].rows(named: []).map { try PlannedRow($0) }
        let none = ScriptedLauncher { _, _ in CompareTests.launch(mainMs: 5, cpuMs: 4) }
        let refused = try Self.session(none).run(missing)
        #expect(none.paths.isEmpty && refused.programMissing)
        #expect(refused.problems.first?.hasPrefix("launch 'gone', base: nope in ") == true, "\(refused.problems)")
    }

    @Test func withoutRunNothingIsLaunched() throws {
        let launcher = ScriptedLauncher { _, _ in CompareTests.launch(mainMs: 5, cpuMs: 4) }
        let outcome = try Self.session(launcher).run(try Self.request(run: nil))
        #expect(launcher.paths.isEmpty)
        #expect(outcome.report.verdict.status == .notMeasured || outcome.report.verdict.status == .findings)
        #expect(outcome.report.notMeasured == "no --run given")
    }

    @Test func aProgramMissingFromAFolderIsNamedAndNotLaunched() throws {
        let launcher = ScriptedLauncher { _, _ in CompareTests.launch(mainMs: 5, cpuMs: 4) }
        let outcome = try Self.session(launcher).run(try Self.request(run: "nope"))
        #expect(launcher.paths.isEmpty)
        #expect(outcome.programMissing)
        #expect(outcome.problems.count == 1 && outcome.problems[0].hasPrefix("base: nope in "), "\(outcome.problems)")
    }

    @Test func aFolderWithoutELFFilesIsAnInputFailure() throws {
        var request = try Self.request(run: nil)
        request.sides = .folders(base: try Samples.path("pairs/base"), head: "/nonexistent-premain-folder")
        #expect(throws: PullRequestSession.Failure.self) {
            _ = try Self.session(ScriptedLauncher { _, _ in CompareTests.launch(mainMs: 5, cpuMs: 4) }).run(request)
        }
    }
}
