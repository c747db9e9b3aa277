import Foundation
import Glibc
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import Testing

/// Runs the built `premain measure` on the samples: help, usage errors, formats, exit codes,
/// and SIGINT to premain killing the target's process group.
@Suite(.serialized) struct MeasureCLITests {
    static func premain(_ arguments: [String]) throws -> CLI.Result {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        return try CLI.run(arguments)
    }

    @Test func helpIsTheSameBothWays() throws {
        let help = try Self.premain(["measure", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("OVERVIEW: "))
        #expect(help.stdout.contains("USAGE: premain measure"))
        #expect(help.stdout.contains("--cold"))
        #expect(try Self.premain(["help", "measure"]).stdout == help.stdout)
    }

    @Test func missingCommandIsAUsageError() throws {
        let result = try Self.premain(["measure", "--runs", "3"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: missing expected argument '<command>'"))
        #expect(result.stderr.contains("See 'premain measure --help'"))
        #expect(try Self.premain(["measure", "--runs", "zero", "--", "/bin/true"]).status == 64)
    }

    @Test func unknownCommandIsAnInputError() throws {
        let result = try Self.premain(["measure", "--", "premain-no-such-command"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("command not found: premain-no-such-command"))
    }

    @Test func jsonOnStdoutStaysParseable() throws {
        let exe = try CLI.sample("cxx-static-init/cxx-static-init")
        let result = try Self.premain(["measure", "--runs", "3", "--warmup", "0", "--format", "json", "--show-output", "--", exe])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONRenderer.decode(MeasureReport.self, from: result.stdout)
        #expect(report.schemaVersion == 1)
        let measurement = try #require(report.measurements.first)
        #expect(measurement.runs == 3)
        #expect(measurement.milestones.main?.samplesMs.count == 3)
        #expect(measurement.objects.contains { $0.path.hasSuffix("/libinit.so") && $0.initializers != nil })
        // The target's stdout was forwarded to stderr, keeping stdout pure JSON.
        #expect(result.stderr.contains("cxx-static-init: main reached"))
        #expect(!result.stdout.contains("main reached"))
    }

    @Test func targetOutputIsDroppedByDefault() throws {
        let exe = try CLI.sample("cxx-static-init/cxx-static-init")
        let result = try Self.premain(["measure", "--runs", "2", "--warmup", "0", "--no-observer", "--", exe])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("main reached"))
        #expect(!result.stderr.contains("main reached"))
        #expect(result.stdout.contains("first output"))
    }

    @Test func failingTargetExitsWithFour() throws {
        let exe = try CLI.sample("faults/exit-nonzero")
        let result = try Self.premain(["measure", "--runs", "2", "--warmup", "0", "--no-observer", "--discard-output", "--", exe])
        #expect(result.status == 4)
        #expect(result.stdout.contains("FAILED: 2 of 2 runs: exited with status 3"))
        #expect(result.stderr.contains("2 of 2 runs: exited with status 3"))
        #expect(!result.stdout.contains("exit-nonzero: failing"))
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func interruptKillsTheTargetGroup(signal: Int32) throws {
        let hang = try CLI.sample("faults/hang")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["measure", "--runs", "1", "--warmup", "0", "--discard-output", "--", hang]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var group: pid_t = 0
        for _ in 0..<500 where group == 0 {
            group = Self.processes(running: hang).first.map { Self.processGroup(of: $0) } ?? 0
            if group == 0 { usleep(10_000) }
        }
        try #require(group > 0, "the target never started")
        kill(process.processIdentifier, signal)
        for _ in 0..<1000 where process.isRunning { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            Issue.record("premain ignored signal \(signal) for 10 s")
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        // Killed members become zombies. This test process is a child subreaper (other suites
        // create a ProcessLauncher), so premain's orphaned, killed target is re-parented to us:
        // reap it as init would, then nothing at all may remain.
        var left = ProcessTable.members(ofGroup: group)
        for _ in 0..<200 where !left.isEmpty {
            var status: Int32 = 0
            while waitpid(-group, &status, WNOHANG) > 0 {}
            usleep(10_000)
            left = ProcessTable.members(ofGroup: group)
        }
        #expect(left.isEmpty, "left in group \(group): \(left)")
        #expect(Self.processes(running: hang).isEmpty)
    }

    /// Pids whose /proc/PID/exe is `path`.
    static func processes(running path: String) -> [pid_t] {
        ProcessScan.all().filter { $0.executable == path }.map(\.pid)
    }

    static func processGroup(of pid: pid_t) -> pid_t {
        let group = getpgid(pid)
        return group > 0 ? group : 0
    }
}
