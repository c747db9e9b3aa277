import PremainJudge
import PremainLaunch
import PremainModel
import PremainPullRequest
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
