import Foundation
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

/// Runs the built `premain compare` on the samples: help, usage and input errors, folders with
/// --run, every format, and exit codes that follow the verdict. Which verdict two real builds
/// get depends on the machine's load, so no test asserts it.
@Suite(.serialized) struct CompareCLITests {
    static func premain(_ arguments: [String], in folder: String? = nil) throws -> CLI.Result {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        return try CLI.run(arguments, in: folder)
    }

    @Test func helpDocumentsVerdictsAndExitCodes() throws {
        let help = try Self.premain(["compare", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: premain compare"))
        #expect(help.stdout.contains("5 inconclusive"))
        #expect(help.stdout.contains("--max-runs"))
        #expect(try Self.premain(["--help"]).stdout.contains("5 compare was inconclusive"))
    }

    @Test func badInputsGetOneLineAndTheirCode() throws {
        let app = try Samples.path("pairs/base/app")
        let folder = (app as NSString).deletingLastPathComponent
        let missing = try Self.premain(["compare", app, "/nonexistent/app"])
        #expect(missing.status == 3)
        #expect(missing.stderr == "Error: /nonexistent/app: no such file or folder\n")
        let noRun = try Self.premain(["compare", folder, folder])
        #expect(noRun.status == 64)
        #expect(noRun.stderr.hasPrefix("Error: \(folder) is a folder; name the executable in it with --run NAME\n"))
        let wrongRun = try Self.premain(["compare", "--run", "nope", folder, folder])
        #expect(wrongRun.status == 3)
        #expect(wrongRun.stderr.hasPrefix("Error: nope in \(folder): no such executable file"))
        #expect(try Self.premain(["compare", app]).status == 64)
        #expect(try Self.premain(["compare", "--max-runs", "4", "--min-runs", "8", app, app]).status == 64)
    }

    /// One real comparison of two identical builds in a folder each, with --run; the JSON
    /// holds every documented field and the exit code is the verdict's.
    @Test func identicalBuildsGiveAReportWhoseExitCodeFollowsTheVerdict() throws {
        let base = (try Samples.path("pairs/aa-1/app") as NSString).deletingLastPathComponent
        let head = (try Samples.path("pairs/aa-2/app") as NSString).deletingLastPathComponent
        let result = try Self.premain([
            "compare", "--run", "app", "--min-runs", "8", "--max-runs", "16", "--format", "json",
            "--no-config", base, head,
        ])
        let report = try JSONRenderer.decode(CompareReport.self, from: result.stdout)
        #expect(result.status == report.outcome.exitCode.rawValue, "\(result.stderr)")
        #expect(report.runs.perSide >= 8 && report.runs.perSide <= 16 && report.runs.perSide % 2 == 0)
        #expect(report.runs.blocks.allSatisfy { $0 == "ABBA" || $0 == "BAAB" })
        #expect(!report.reasons.isEmpty)
        #expect(report.base.path.hasSuffix("/pairs/aa-1/app") && report.head.label == head)
        let main = try #require(report.times.first { $0.quantity == .milestone(.main) })
        #expect(main.gated && main.base.samplesMs.count == report.runs.perSide)
        // Loader counts of byte-identical builds are identical, run after run.
        let lookups = try #require(report.counts.first { $0.quantity == .symbolLookups })
        #expect(lookups.base.min == lookups.base.max && lookups.base.samples == lookups.head.samples)
        #expect(lookups.result == .noChange)
        #expect(report.counts.contains { $0.quantity == .minorFaults })
        #expect(result.stdout.contains("\"difference\"") && result.stdout.contains("\"highMs\""))
    }

    @Test func markdownAndTextShowTheVerdictFirst() throws {
        let app = try Samples.path("pairs/aa-1/app")
        let markdown = try Self.premain([
            "compare", "--min-runs", "4", "--max-runs", "4", "--format", "markdown", "--no-config", app, app,
        ])
        #expect([0, 2, 5].contains(markdown.status))
        let lines = markdown.stdout.split(separator: "\n")
        #expect(lines.first == "<!-- premain-compare -->")
        #expect(["❌", "🟢", "✅", "⚠️"].contains { lines[2].hasPrefix($0) })
        let text = try Self.premain([
            "compare", "--min-runs", "4", "--max-runs", "4", "--no-config", app, app, "--", "arg",
        ])
        #expect(text.stdout.hasPrefix("verdict: "))
        #expect(text.stdout.contains("runs: 4 per side in 2 blocks"))
    }

    /// The work pair's head runs exactly 3,000,002 more instructions in its constructor: with
    /// --instructions the verdict is a regression whatever the wall-clock noise (exact counts).
    @Test(.enabled(if: HostFacts.valgrind != nil, "valgrind is not installed (scripts/setup installs it)"))
    func instructionCountsMakeTheVerdictExact() throws {
        let base = try Samples.path("pairs/work-base/app")
        let head = try Samples.path("pairs/work-head/app")
        let result = try Self.premain([
            "compare", "--instructions", "--min-runs", "4", "--max-runs", "8", "--format", "json",
            "--no-config", base, head,
        ])
        #expect(result.status == 2, "\(result.stderr)")
        let report = try JSONRenderer.decode(CompareReport.self, from: result.stdout)
        #expect(report.verdict == .regression)
        let instructions = try #require(report.instructions)
        let before = try #require(instructions.difference.beforeMain)
        #expect(abs(before - 3_000_002) < 1_000, "\(before)")
        #expect(instructions.result == .regression && instructions.base.runs == 1)
        #expect(instructions.functions.first?.name == "premain_work_ctor")
        #expect(report.reasons.first?.hasPrefix("instructions before main +3,000,0") == true, "\(report.reasons)")
        // A file against its own copy: identical counts, so never a regression by instructions.
        let same = try Self.premain([
            "compare", "--instructions", "--min-runs", "4", "--max-runs", "4", "--format", "json",
            "--no-config", base, base,
        ])
        let sameReport = try JSONRenderer.decode(CompareReport.self, from: same.stdout)
        #expect(sameReport.instructions?.difference == InstructionDifference(beforeMain: 0, toFirstOutput: 0, total: 0))
        #expect(sameReport.instructions?.result == .noChange)
    }

    /// Issue 23, defect 11: `compare --instructions /usr/bin/env /usr/bin/env -- true` exited 70
    /// ("callgrind's callgrind.out.N: no events: line"); env execs true, whose image is counted.
    @Test(.enabled(if: HostFacts.valgrind != nil, "valgrind is not installed (scripts/setup installs it)"))
    func instructionsOnAnExecChainCountItsLastImage() throws {
        let result = try Self.premain([
            "compare", "--instructions", "--min-runs", "4", "--max-runs", "4", "--format", "json",
            "--no-config", "/usr/bin/env", "/usr/bin/env", "--", "true",
        ])
        #expect(result.status != 70, "\(result.stderr)")
        let report = try JSONRenderer.decode(CompareReport.self, from: result.stdout)
        let instructions = try #require(report.instructions)
        #expect(instructions.base.total > 0 && instructions.difference.total == 0)
        #expect(
            instructions.base.notes.contains { $0.contains("counted is its last image, '") && $0.contains("true") },
            "\(instructions.base.notes)")
    }

    @Test func missingValgrindIsAnInputError() throws {
        let app = try Samples.path("pairs/aa-1/app")
        let result = try CLI.run(["compare", "--instructions", app, app], environment: ["PATH": "/nonexistent"])
        #expect(result.status == 3)
        #expect(result.stderr == "Error: valgrind not found; install the Debian package valgrind\n")
    }
}
