import Glibc
import LosslessText
import PremainModel
import PremainSystem
import PremainTestSupport
import Testing

@testable import PremainLaunch

/// Issue 34, defects 5 and 6: the measured program must not steer the measurement through the
/// loader's channel, and loader lines are matched on what paths can hold. Parser tests on
/// recorded glibc 2.36 lines; real launches of samples/steering assert what happened (the
/// outcome, the names), never how long it took; the verdict on scripted launches.
@Suite(.serialized) struct SteeringTests {
    /// Recorded lines of a program whose initializers run, then main, with `pid` 4242.
    static let ordinary = [
        "  4242:\tfile=libc.so.6 [0];  needed by ./app [0]",
        "  4242:\ttrying file=/lib/x86_64-linux-gnu/libc.so.6",
        "  4242:\tfile=libc.so.6 [0];  generating link map",
        "  4242:\t  dynamic: 0x00007f0000000000  base: 0x00007f0000000000   size: 0x00000000001e1f50",
        "  4242:\trelocation processing: /lib/x86_64-linux-gnu/libc.so.6",
        "  4242:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6",
        "  4242:\tinitialize program: ./app",
    ]

    static func parse(_ lines: [String], pid: Int32 = 4242) -> LdDebugParser {
        var parser = LdDebugParser(pid: pid, program: "./app")
        for (index, line) in lines.enumerated() { parser.consume(line: line, atMs: Double(index)) }
        return parser
    }

    static func launch(_ relative: String, _ arguments: [String] = []) throws -> LaunchSample {
        let exe = try Samples.path(relative)
        return try ProcessLauncher().launch(
            LaunchRequest(
                executablePath: exe, arguments: [exe] + arguments, environment: ["PATH=/usr/bin:/bin"],
                instrumented: true, timeoutSeconds: 30))
    }

    // MARK: defect 5: the program must not steer the measurement

    @Test func theMeasuredProgramMustNotSteerTheMeasurement() throws {
        // Recorded: a constructor of the program wrote "transferring control" 20 ms before the
        // loader did; a library's constructor wrote it before "initialize program".
        let forgedInProgram = Self.parse(
            Self.ordinary + ["  4242:\ttransferring control: ./app", "  4242:\ttransferring control: ./app"])
        #expect(forgedInProgram.forgery == "a second 'transferring control' line arrived")
        var early = Self.ordinary
        early.insert("  4242:\ttransferring control: ./app", at: 6)
        #expect(Self.parse(early).forgery == "'transferring control' arrived before 'initialize program'")
        #expect(Self.parse(Self.ordinary + early.suffix(2)).forgery != nil)
        #expect(Self.parse(Self.ordinary + ["  4242:\ttransferring control: ./app"]).forgery == nil)

        // Real launches: the line forged in the program's constructor (then 20 ms of work), in a
        // library's constructor then the channel closed, and the channel closed by close_range:
        // no loader figure, a failed run.
        for sample in ["steering/forge-main", "steering/forge-lib-app", "steering/close-channel"] {
            let launched = try Self.launch(sample)
            #expect(launched.outcome.kind == .unmeasurable, "\(sample): \(launched.outcome.message)")
            #expect(launched.outcome.message.hasPrefix(LaunchOutcome.unmeasurableMessage))
            #expect(!launched.outcome.succeeded)
            #expect(launched.loader == nil, "\(sample) kept loader figures")
        }
        // Forged in the program's own constructor and then closed, it looks like a program that
        // closes every descriptor in main (OpenSSH's closefrom): measured, the close noted.
        let closedAfter = try Self.launch("steering/forge-main-close")
        #expect(closedAfter.outcome.kind == .success, "\(closedAfter.outcome.message)")
        #expect(closedAfter.loaderChannelClosedMs != nil)
        // An ordinary program and one that exits from main are measured as before.
        for sample in ["c-hello/c-hello", "faults/exit-nonzero", "late-load/app"] {
            let launched = try Self.launch(sample)
            #expect(launched.outcome.kind != .unmeasurable, "\(sample): \(launched.outcome.message)")
            #expect(launched.loader?.mainMs != nil, "\(sample)")
            #expect(launched.loaderChannelClosedMs == nil, "\(sample)")
        }
        // measure counts the runs as failed and names the cause, with no loader phases.
        let exe = try Samples.path("steering/forge-main")
        var options = MeasureOptions(runs: 2, warmup: 0, observerSeries: false)
        options.holdIdleLatency = false
        let measurement = try MeasureSession(launcher: ProcessLauncher()).measure(
            command: [exe], environment: ["PATH=/usr/bin:/bin"], options: options)
        #expect(measurement.status == .failed)
        #expect(measurement.milestones[.main] == nil)
        #expect(measurement.failures.contains { $0.hasPrefix("2 of 2 runs: unmeasurable") }, "\(measurement.failures)")
    }

    /// A compare whose gated quantity did not move while exit and CPU time rose 20 ms and 9 ms.
    @Test func aVerdictNeverReadsNoChangeWhileAPrintedQuantityRegressed() throws {
        let launcher = ScriptedLauncher { path, index in
            let head = path == "/h"
            let jitter = Double(index % 3) * 0.01
            var timeline = LoaderTimeline(loaderStartMs: 0.3)
            timeline.loaderDoneMs = 0.6
            timeline.mainMs = 0.8 + jitter
            var sample = LaunchSample(
                birthNs: 0, instrumented: true, loader: timeline, firstOutputMs: nil, firstOutputStream: nil,
                exitMs: (head ? 21.0 : 1.0) + jitter,
                outcome: LaunchOutcome(kind: .success, exitStatus: 0, message: "exited with status 0"), stderrHead: "")
            sample.cpuMs = (head ? 10.0 : 1.0) + jitter
            return sample
        }
        var session = CompareSession(launcher: launcher)
        session.clock = { 0 }
        session.loadAverage = { 0.2 }
        var options = CompareOptions(settings: CompareSettings(minRuns: 16, maxRuns: 40, seed: 1))
        options.pin = false
        options.realtimeMeasurer = false
        options.holdIdleLatency = false
        let report = try session.compare(base: "/b", head: "/h", arguments: [], environment: [], options: options)
        #expect(report.verdict != .noChange, "\(report.reasons)")
        #expect(report.verdict == .inconclusive)
        #expect(report.reasons.contains { $0.contains("exit") && $0.contains("rose") }, "\(report.reasons)")
    }

    // MARK: defect 6: loader lines against what paths can hold

    @Test func loaderLinesAreNotSplitOnTextAFileNameCanHold() throws {
        // Recorded shapes: a dlopen'd path with " [", a folder with a newline (one write, so one
        // read: the line without the pid is joined to the one before), a byte that is not UTF-8.
        var parser = LdDebugParser(pid: 4242, program: "./app")
        let lines: [[UInt8]] = (Self.ordinary + ["  4242:\ttransferring control: ./app"]).map { Array($0.utf8) }
        parser.consume(lines: lines.map { $0[...] }, atMs: 1)
        let late: [String] = [
            "  4242:\tfile=/x/br [x]/libbr.so [0];  dynamically loaded by ./app [0]",
            "  4242:\tfile=/x/br [x]/libbr.so [0];  generating link map",
            "  4242:\topening file=/x/br [x]/libbr.so [0]; direct_opencount=1",
        ]
        parser.consume(lines: late.map { Array($0.utf8)[...] }, atMs: 2)
        let timeline = try #require(parser.result)
        let load = try #require(timeline.loadedAfterMain?.first)
        #expect(load.name == "/x/br [x]/libbr.so")
        #expect(load.requester == "./app")
        #expect(load.endMs == 2)

        var split = LdDebugParser(pid: 4242, program: "./app")
        let unByte = Array("/x/un/libun".utf8) + [0xFF] + Array(".so".utf8)
        let chunk: [[UInt8]] = [
            Array("  4242:\tfile=libnl.so [0];  needed by ./app [0]".utf8),
            Array("  4242:\tfile=libnl.so [0];  generating link map".utf8),
            Array("  4242:\trelocation processing: /x/nl".utf8), Array("folder/libnl.so".utf8),
            Array("  4242:\trelocation processing: ".utf8) + unByte,
            Array("  4242:\tcalling init: /x/nl".utf8), Array("folder/libnl.so".utf8),
        ]
        split.consume(lines: chunk.map { $0[...] }, atMs: 3)
        let passes = try #require(split.result?.relocations)
        #expect(passes.map(\.path) == ["/x/nl\nfolder/libnl.so", LosslessUTF8.string(unByte)])
        #expect(LosslessUTF8.bytes(passes[1].path) == unByte)
        #expect(split.result?.initializers.map(\.path) == ["/x/nl\nfolder/libnl.so"])
        #expect(split.result?.continuedLines == 2)
        // A line of another process (a child forked in a constructor, exiting) is never joined
        // to a path.
        var child = LdDebugParser(pid: 4242, program: "./app")
        let withChild: [[UInt8]] = [
            Array("  4242:\tcalling init: /x/liba.so".utf8), Array("  4343:\tcalling fini: /x/liba.so [0]".utf8),
        ]
        child.consume(lines: withChild.map { $0[...] }, atMs: 4)
        #expect(child.result?.initializers.map(\.path) == ["/x/liba.so"])

        // Real files: dlopens loads libraries from such folders after main; named-app links them.
        let folder = LocalFiles.directory(of: try Samples.path("steering/dlopens"))
        let paths = [
            folder + "/br [x]/libbr.so", folder + "/nl\nfolder/libnl.so",
            folder + "/un/" + LosslessUTF8.string(Array("libun".utf8) + [0xFF] + Array(".so".utf8)),
        ]
        #expect(paths.allSatisfy { LocalFiles.status($0) != nil })
        let dlopened = try Self.launch("steering/dlopens", paths)
        #expect(dlopened.outcome.kind == .success, "\(dlopened.outcome.message) \(dlopened.stderrHead)")
        let loads = try #require(dlopened.loader?.loadedAfterMain)
        #expect(loads.map(\.name) == paths)
        #expect(loads.allSatisfy { $0.endMs != nil })
        let linked = try Self.launch("steering/named-app")
        #expect(linked.outcome.kind == .success, "\(linked.outcome.message) \(linked.stderrHead)")
        let relocated = try #require(linked.loader?.relocations).map(\.path)
        #expect(relocated.allSatisfy { LocalFiles.status($0) != nil }, "\(relocated)")
        #expect(relocated.contains(paths[1]) && relocated.contains(paths[2]), "\(relocated)")
        let initialized = try #require(linked.loader?.initializers).map(\.path)
        #expect(initialized.contains(paths[1]) && initialized.contains(paths[2]), "\(initialized)")
    }
}
