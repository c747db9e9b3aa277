import Foundation
import Glibc
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
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
        let exe = try Samples.path("cxx-static-init/cxx-static-init")
        let result = try Self.premain([
            "measure", "--runs", "3", "--warmup", "0", "--format", "json", "--show-output", "--", exe,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONRenderer.decode(MeasureReport.self, from: result.stdout)
        #expect(report.schemaVersion == 1)
        let measurement = try #require(report.measurements.first)
        #expect(measurement.runs == 3)
        #expect(measurement.milestones[.main]?.samplesMs.count == 3)
        #expect(measurement.objects.contains { $0.path.hasSuffix("/libinit.so") && $0.initializers != nil })
        // The target's stdout was forwarded to stderr, keeping stdout pure JSON.
        #expect(result.stderr.contains("cxx-static-init: main reached"))
        #expect(!result.stdout.contains("main reached"))
    }

    @Test func targetOutputIsDroppedByDefault() throws {
        let exe = try Samples.path("cxx-static-init/cxx-static-init")
        let result = try Self.premain(["measure", "--runs", "2", "--warmup", "0", "--no-observer", "--", exe])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("main reached"))
        #expect(!result.stderr.contains("main reached"))
        #expect(result.stdout.contains("first output"))
    }

    @Test(
        .enabled(
            if: HostFacts.valgrind != nil, "valgrind not installed: scripts/setup installs the Debian package valgrind")
    )
    func instructionsSectionInJSONAndText() throws {
        let exe = try Samples.path("pairs/work-head/app")
        let json = try Self.premain([
            "measure", "--runs", "1", "--warmup", "0", "--no-observer", "--instructions",
            "--format", "json", "--", exe,
        ])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try JSONRenderer.decode(MeasureReport.self, from: json.stdout)
        let counts = try #require(report.measurements.first?.instructions)
        #expect(counts.functions.first?.symbol == "premain_work_ctor")
        #expect((counts.beforeMain ?? 0) > 3_000_000)
        let text = try Self.premain([
            "measure", "--runs", "1", "--warmup", "0", "--no-observer", "--instructions", "--", exe,
        ])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("instructions under callgrind"))
        let line = text.stdout.split(separator: "\n").first { $0.contains("premain_work_ctor") } ?? ""
        #expect(line.split(separator: " ").map(String.init) == ["premain_work_ctor", "app", "3,000,002", "1"])
    }

    /// Issue 23, defect 11: `measure --instructions -- sh -c 'exec ./app'` exited 70; the
    /// exec'd image is counted, and the report says so.
    @Test(
        .enabled(
            if: HostFacts.valgrind != nil, "valgrind not installed: scripts/setup installs the Debian package valgrind")
    )
    func instructionsOnAnExecChainCountItsLastImage() throws {
        let exe = try Samples.path("pairs/work-head/app")
        let result = try Self.premain([
            "measure", "--runs", "1", "--warmup", "0", "--no-observer", "--instructions",
            "--format", "json", "--", "/bin/sh", "-c", #"exec "$0""#, exe,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try JSONRenderer.decode(MeasureReport.self, from: result.stdout)
        let counts = try #require(report.measurements.first?.instructions)
        #expect(counts.functions.first?.symbol == "premain_work_ctor")
        #expect(
            counts.notes.contains {
                $0.hasPrefix("the program replaced itself (exec): counted is its last image, '\(exe)'")
            },
            "\(counts.notes)")
    }

    @Test func instructionsWithoutValgrindIsAnInputError() throws {
        #expect(try Self.premain(["measure", "--help"]).stdout.contains("--instructions"))
        // A PATH without valgrind stands for a machine without it; nothing is measured.
        let missing = try CLI.run(
            ["measure", "--instructions", "--", "/bin/true"],
            environment: HostFacts.valgrind == nil ? [:] : ["PATH": "/nonexistent"])
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("valgrind not found; install the Debian package valgrind"))
        #expect(missing.stdout.isEmpty)
    }

    @Test func failingTargetExitsWithFour() throws {
        let exe = try Samples.path("faults/exit-nonzero")
        let result = try Self.premain([
            "measure", "--runs", "2", "--warmup", "0", "--no-observer", "--discard-output", "--", exe,
        ])
        #expect(result.status == 4)
        #expect(result.stdout.contains("FAILED: 2 of 2 runs: exited with status 3"))
        #expect(result.stderr.contains("2 of 2 runs: exited with status 3"))
        #expect(!result.stdout.contains("exit-nonzero: failing"))
    }

    /// SIGINT and SIGTERM run premain's handler; SIGKILL runs nothing, so the watchdog ends
    /// the target. Either way the target, its LD_DEBUG folder and its cgroup are gone.
    @Test(arguments: [SIGINT, SIGTERM, SIGKILL])
    func interruptKillsTheTargetGroup(signal: Int32) throws {
        // A private copy: no other test runs it, so the processes running it are this test's.
        let folder = TemporaryFolders.root + "/premain-hang-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let hang = folder + "/hang"
        try FileManager.default.copyItem(atPath: try Samples.path("faults/hang"), toPath: hang)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["measure", "--runs", "1", "--warmup", "0", "--discard-output", "--", hang]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        var group: pid_t = 0
        let started = Poll.until {
            group = Self.processes(running: hang).first.map { Self.processGroup(of: $0) } ?? 0
            return group > 0
        }
        try #require(started, "the target never started")
        let target = try #require(Self.processes(running: hang).first)
        let environment = (try? String(contentsOfFile: "/proc/\(target)/environ", encoding: .utf8)) ?? ""
        let debugOutput = environment.split(separator: "\0").first { $0.hasPrefix("LD_DEBUG_OUTPUT=") }
        let debugFolder = try #require(
            debugOutput.map {
                String($0.dropFirst("LD_DEBUG_OUTPUT=".count)).replacingOccurrences(of: "/ld-debug", with: "")
            })
        let cgroupLine = ((try? String(contentsOfFile: "/proc/\(target)/cgroup", encoding: .utf8)) ?? "")
            .split(separator: "\n").first { $0.hasPrefix("0::") && $0.contains("/premain-") }
        kill(process.processIdentifier, signal)
        #expect(Poll.exit(of: process), "premain ignored signal \(signal)")
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == signal)
        // Killed members become zombies. This test process is a child subreaper (other suites
        // create a ProcessLauncher), so premain's orphaned, killed target is re-parented to us:
        // reap it as init would, then nothing at all may remain.
        var left = ProcessTable.members(ofGroup: group)
        _ = Poll.until(seconds: 30) {
            var status: Int32 = 0
            while waitpid(-group, &status, WNOHANG) > 0 {}
            left = ProcessTable.members(ofGroup: group)
            return left.isEmpty
        }
        #expect(left.isEmpty, "left in group \(group): \(left)")
        #expect(Self.processes(running: hang).isEmpty)
        #expect(
            Poll.until(seconds: 30) { !FileManager.default.fileExists(atPath: debugFolder) },
            "\(debugFolder) was left behind")
        if let cgroupLine, let mount = Self.unifiedCgroupMount() {
            let path = mount + cgroupLine.dropFirst(3)
            #expect(
                Poll.until(seconds: 30) { !FileManager.default.fileExists(atPath: path) }, "\(path) was left behind")
        }
    }

    /// A target that double-forks and calls setsid leaves its process group: premain still ends
    /// the daemon (its cgroup, or as a child subreaper) and counts it.
    @Test func daemonsThatLeaveTheProcessGroupAreEndedAndCounted() throws {
        let folder = TemporaryFolders.root + "/premain-daemon-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let daemon = folder + "/daemonizes"
        try FileManager.default.copyItem(atPath: try Samples.path("faults/daemonizes"), toPath: daemon)
        let result = try Self.premain(["measure", "--runs", "2", "--warmup", "0", "--format", "json", "--", daemon])
        #expect(result.status == 0, "\(result.stderr)")
        let measurement = try #require(
            try JSONRenderer.decode(MeasureReport.self, from: result.stdout).measurements.first)
        #expect(measurement.outcomes.allSatisfy { $0.lingeringProcessesKilled >= 1 && !$0.processesLeftBehind })
        #expect(Poll.until(seconds: 30) { Self.processes(running: daemon).isEmpty })
    }

    static func unifiedCgroupMount() -> String? {
        let info = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        for line in info.split(separator: "\n") where line.contains(" - cgroup2 ") {
            let fields = line.split(separator: " ")
            if fields.count > 4 { return String(fields[4]) }
        }
        return nil
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
