import Foundation
import Glibc
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

/// Issue 12's defects, each on a real launch of a sample through the built premain. They check
/// what happened (milestones reached, outcomes, sections, exit codes), never how long it took.
@Suite(.serialized) struct MeasureEdgeCLITests {
    static func premain(_ arguments: [String]) throws -> CLI.Result {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        return try CLI.run(arguments)
    }

    /// A copy of a sample in a folder of its own: the processes running it are this test's,
    /// whatever other suites run at the same time.
    static func privateCopy(_ sample: String) throws -> String {
        let folder = TemporaryFolders.root + "/premain-edge-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let copy = folder + "/" + (sample as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: try Samples.path(sample), toPath: copy)
        return copy
    }

    static func measure(_ arguments: [String]) throws -> (CLI.Result, LaunchMeasurement) {
        let result = try premain(["measure", "--warmup", "0", "--format", "json"] + arguments)
        let report = try JSONRenderer.decode(MeasureReport.self, from: result.stdout)
        return (result, try #require(report.measurements.first))
    }

    @Test func objectsLoadedAfterMainAreTheirOwnSection() throws {
        let app = try Samples.path("late-load/app")
        let (result, m) = try Self.measure(["--runs", "2", "--", app])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!m.objects.contains { $0.path.hasSuffix("libplugin.so") })
        let plugin = try #require(m.loadedAfterMain?.first { $0.path.hasSuffix("libplugin.so") })
        #expect(plugin.runs == 2)
        #expect(plugin.unfinished == 0)
        #expect(plugin.initializers?.samplesMs.count == 2)
        // check never takes it for time before main.
        let folder = TemporaryFolders.root + "/premain-late-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try result.stdout.write(toFile: folder + "/measure.json", atomically: true, encoding: .utf8)
        let check = try Self.premain(["check", "--format", "json", folder + "/measure.json"])
        #expect(check.stdout.contains("\"findings\""), "\(check.stderr)")
        #expect(check.stdout.contains("measure.json") && !check.stdout.contains("libplugin.so"), "\(check.stdout)")
    }

    @Test func execChainsAreMeasuredPerImage() throws {
        let hello = try Samples.path("c-hello/c-hello")
        let (result, m) = try Self.measure(["--runs", "2", "--", "/bin/sh", "-c", "exec \(hello)"])
        #expect(result.status == 0, "\(result.stderr)")
        let image = try #require(m.execImages?.first)
        #expect(m.execImages?.count == 1)
        #expect(image.program == hello)
        #expect(image.runs == 2)
        #expect(image.milestones[.main]?.samplesMs.count == 2)
        #expect(image.objects.contains { $0.role == .executable && $0.path == hello })
        #expect(m.objects.filter { $0.role == .executable }.count == 1)
        let libc = m.objects.first { ObjectName.fileName($0.path) == "libc.so.6" }
        #expect(libc?.initializersStart?.samplesMs.count == 2, "image 1's libc, once per run")
        #expect(m.warnings.contains { $0.kind == .execChain })
    }

    @Test func outputCostsWhatDevNullCostsAndIsStillSeen() throws {
        let hello = try Samples.path("c-hello/c-hello")
        let (result, m) = try Self.measure(["--runs", "2", "--", hello])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(m.milestones[.firstOutput]?.samplesMs.count == 2)
        #expect(m.uninstrumented?.firstOutput?.samplesMs.count == 2)
        // As root premain makes its own null device; otherwise it falls back to a pipe and says so.
        #expect(m.outputCapture == (getuid() == 0 ? "null device" : "pipe"))
        let shown = try Self.measure(["--runs", "1", "--show-output", "--", hello]).1
        #expect(shown.outputCapture == "pipe")
        #expect(shown.warnings.contains { $0.kind == .outputThroughPipe })
    }

    @Test func readyEndsAServerRunAsAGoodRun() throws {
        let hang = try Self.privateCopy("faults/hang")
        defer { try? FileManager.default.removeItem(atPath: (hang as NSString).deletingLastPathComponent) }
        let (result, m) = try Self.measure(["--runs", "2", "--timeout", "60", "--ready", "^hang: sleep", "--", hang])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(m.status == .ok)
        #expect(m.outcomes.map(\.kind) == [.stopped, .stopped])
        #expect(m.milestones[.ready]?.samplesMs.count == 2)
        #expect(m.milestones[.exit] == nil)
        #expect(ProcessScan.all().filter { $0.executable == hang }.isEmpty)
    }

    /// Issue 23, defect 7: `--ready 'ready on (a|a)+$'` backtracked for 17 s on a line of 24
    /// `a`s (×4 for every 2 more). Now the line that cannot match costs a few steps per
    /// character and the next line ends the run; a feature that needs backtracking is a usage
    /// error naming it.
    @Test func readyWithABacktrackingPatternHonoursTheTimeout() throws {
        let line = "ready on " + String(repeating: "a", count: 60)
        let script = "echo '\(line)!'; echo '\(line)'; exec sleep 60"
        let (result, m) = try Self.measure([
            "--runs", "1", "--no-observer", "--timeout", "60", "--ready", "ready on (a|a)+$",
            "--", "/bin/sh", "-c", script,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(m.outcomes.map(\.kind) == [.stopped])
        let refused = try Self.premain(["measure", "--ready", #"(a)\1"#, "--", "/bin/true"])
        #expect(refused.status == 64)
        #expect(
            refused.stderr.hasPrefix(
                #"Error: invalid value for '--ready': '(a)\1': back-references ('\1') not supported"#),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("See 'premain measure --help'"))
    }

    @Test func untilFirstOutputAndMainEndTheRun() throws {
        let hang = try Self.privateCopy("faults/hang")
        defer { try? FileManager.default.removeItem(atPath: (hang as NSString).deletingLastPathComponent) }
        let (output, first) = try Self.measure([
            "--runs", "1", "--timeout", "60", "--until", "first-output", "--", hang,
        ])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(first.outcomes.map(\.kind) == [.stopped])
        #expect(first.milestones[.firstOutput] != nil)
        let (main, atMain) = try Self.measure(["--runs", "1", "--timeout", "60", "--until", "main", "--", hang])
        #expect(main.status == 0, "\(main.stderr)")
        #expect(atMain.outcomes.map(\.kind) == [.stopped])
        #expect(atMain.milestones[.main] != nil)
        #expect(atMain.uninstrumented == nil)
        #expect(ProcessScan.all().filter { $0.executable == hang }.isEmpty)
        // A static program prints no loader lines: it cannot stop at main.
        let staticHello = try Samples.path("c-hello/c-hello-static")
        let refused = try Self.premain(["measure", "--until", "main", "--", staticHello])
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("--until main needs the loader's lines"))
        #expect(try Self.premain(["measure", "--until", "", "--", staticHello]).status == 64)
        #expect(try Self.premain(["measure", "--ready", "(", "--", staticHello]).status == 64)
    }

    /// A path that holds a newline and a fake `calling init:` line (here the program's own:
    /// argv[0] is printed by `initialize program:`) cannot forge loader lines: glibc prefixes
    /// every real line with the pid, the forged one has none.
    @Test func spoofedLoaderLinesAreNotTakenForTheLoaders() throws {
        let root = TemporaryFolders.root + "/premain-spoof-\(UUID().uuidString)"
        let folder = root + "/odd\ncalling init: /fake/libforged.so"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let program = folder + "/hello"
        try FileManager.default.copyItem(atPath: try Samples.path("c-hello/c-hello"), toPath: program)
        let result = try CLI.run([
            "measure", "--runs", "1", "--warmup", "0", "--no-observer", "--format", "json", "--", program,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let m = try #require(try JSONRenderer.decode(MeasureReport.self, from: result.stdout).measurements.first)
        #expect(!m.objects.contains { $0.path.hasPrefix("/fake/") }, "\(m.objects.map(\.path))")
        #expect(
            m.objects.filter { $0.initializers == nil && $0.initializersStart != nil }.isEmpty,
            "an unfinished initializer was invented")
        #expect(m.warnings.contains { $0.kind == .oddLoaderPaths })
    }

    /// `--until FUNCTION`: a ptrace breakpoint at the first call (here libc's `puts`, which the
    /// sample calls in main and then sleeps an hour); the loader's lines are still read.
    @Test func untilAFunctionEndsTheRunAtItsFirstCall() throws {
        let hang = try Self.privateCopy("faults/hang")
        defer { try? FileManager.default.removeItem(atPath: (hang as NSString).deletingLastPathComponent) }
        let (result, m) = try Self.measure(["--runs", "2", "--timeout", "60", "--until", "puts", "--", hang])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(m.outcomes.map(\.kind) == [.stopped, .stopped])
        #expect(m.outcomes.allSatisfy { $0.message.hasPrefix("stopped at puts") })
        #expect(m.milestones[.ready]?.samplesMs.count == 2)
        #expect(m.milestones[.main]?.samplesMs.count == 2)
        #expect(m.uninstrumented?.outcomes.map(\.kind) == [.stopped, .stopped])
        #expect(ProcessScan.all().filter { $0.executable == hang }.isEmpty)
    }

    /// A run asked to stop at a milestone that exits first did not do what was asked.
    @Test func aRunThatEndsBeforeItsMilestoneFails() throws {
        let hello = try Samples.path("c-hello/c-hello")
        let (function, unknown) = try Self.measure([
            "--runs", "1", "--no-observer", "--until", "premain_no_such_function", "--", hello,
        ])
        #expect(function.status == 4)
        #expect(unknown.outcomes.map(\.kind) == [.notReached])
        #expect(
            function.stderr.contains("exited with status 0 before premain_no_such_function (no function of that name"))
        let (ready, never) = try Self.measure(["--runs", "1", "--no-observer", "--ready", "never printed", "--", hello])
        #expect(ready.status == 4)
        #expect(never.outcomes.map(\.kind) == [.notReached])
    }

    @Test func childProcessesWithLoaderLinesAreCountedNotDropped() throws {
        let (result, m) = try Self.measure([
            "--runs", "1", "--no-observer", "--", "/bin/sh", "-c", "/bin/true; /bin/true",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(m.childProcessesWithLoaderOutput == 2)
        #expect(m.warnings.contains { $0.kind == .childProcesses })
    }

    /// stdin is /dev/null by default in measure and trace: `cat` ends at once even when
    /// premain's own stdin is a pipe nobody writes to or closes.
    @Test func stdinIsDevNullUnlessInherited() throws {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        for command in [
            ["measure", "--runs", "1", "--warmup", "0", "--", "/bin/cat"],
            ["trace", "--runs", "1", "--warmup", "0", "--bias-ms", "0", "--until", "exit", "--", "/bin/cat"],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = command
            let input = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            #expect(Poll.exit(of: process, seconds: 120), "\(command[0]) waited for premain's stdin")
            #expect(process.terminationStatus == 0)
            try? input.fileHandleForWriting.close()
        }
    }
}
