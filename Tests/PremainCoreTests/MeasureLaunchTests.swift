import Foundation
import Glibc
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import Testing

/// Real launches of the self-timed samples: measured initializer time against self-timing.
@Suite(.serialized) struct MeasureLaunchTests {
    /// One self-timing log line: "<id> <start_ns> <end_ns> <duration_ms>".
    struct LogLine {
        var id: String
        var startNs: UInt64
        var endNs: UInt64
        var durationMs: Double { Double(endNs - startNs) / 1e6 }
    }

    static func readLog(_ path: String) -> [LogLine] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 4, let start = UInt64(parts[1]), let end = UInt64(parts[2]) else { return nil }
            return LogLine(id: String(parts[0]), startNs: start, endNs: end)
        }
    }

    static func environment(log: String) -> [String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PREMAIN_SAMPLE") }
            .map { "\($0.key)=\($0.value)" } + ["PREMAIN_SAMPLE_LOG=\(log)"]
    }

    static func temporaryLog() -> String {
        NSTemporaryDirectory() + "premain-measure-log-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).log"
    }

    @Test func cxxStaticInitInitializersMatchSelfTiming() throws {
        let exe = try Samples.path("cxx-static-init/cxx-static-init")
        let log = Self.temporaryLog()
        defer { unlink(log) }
        let session = MeasureSession(launcher: ProcessLauncher())
        let measurement = try session.measure(command: [exe], environment: Self.environment(log: log),
                                              options: MeasureOptions(runs: 7, warmup: 1, observerSeries: false))
        #expect(measurement.status == .ok)
        #expect(measurement.conditions.pinning.pinned == (CPUPinning.allowedCPUs().count >= 2))
        #expect(measurement.conditions.measurerScheduling != nil)
        #expect(measurement.conditions.environmentOverrides.contains("LD_DEBUG=files,statistics"))
        #expect(measurement.conditions.buildID != nil)
        // Every run (the warm-up first) logs each id once and "main" last: split runs at "main".
        var perRun: [[String: Double]] = [[:]]
        for line in Self.readLog(log) {
            if line.id == "main" { perRun.append([:]) } else { perRun[perRun.count - 1][line.id] = line.durationMs }
        }
        let counted = Array(perRun.dropFirst().prefix(7))  // after the warm-up
        try #require(counted.count == 7)
        func selfTimed(_ prefix: String) -> [Double] {
            counted.map { $0.filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +) }
        }
        let library = try #require(measurement.objects.first { $0.path.hasSuffix("/libinit.so") })
        let program = try #require(measurement.objects.first { $0.role == .executable })
        let libraryRuns = try #require(library.initializers?.samplesMs)
        let programRuns = try #require(program.initializers?.samplesMs)
        try #require(libraryRuns.count == 7 && programRuns.count == 7)
        // The median of the per-run errors: robust to a run preempted by other work.
        let libraryError = try #require(SampleStatistics.median(zip(libraryRuns, selfTimed("lib:")).map { abs($0 - $1) }))
        let programError = try #require(SampleStatistics.median(zip(programRuns, selfTimed("exe:")).map { abs($0 - $1) }))
        #expect(libraryError <= 0.5, "libinit.so: measured \(libraryRuns), self-timed \(selfTimed("lib:"))")
        #expect(programError <= 0.5, "executable: measured \(programRuns), self-timed \(selfTimed("exe:"))")
        #expect(abs((library.initializers?.medianMs ?? 0) - 35) < 35 * 0.5, "35 ms configured in libinit.so")
        #expect(library.initializers?.samplesMs.count == 7)
        // Loader order facts: libinit.so is mapped before its initializers run, main after them.
        let main = try #require(measurement.milestones.main?.medianMs)
        let done = try #require(measurement.milestones.loaderDone?.medianMs)
        #expect(done < main)
        #expect(main - done >= 40 - 0.5)
        #expect(try #require(measurement.loaderCounts?.startup?.symbolLookups) > 0)
    }

    @Test func swiftStartupMainMatchesSelfTimedMain() throws {
        let exe = try Samples.path("swift-startup/swift-startup")
        let log = Self.temporaryLog()
        defer { unlink(log) }
        let launcher = ProcessLauncher()
        var mainErrors: [Double] = []
        var programInit: [Double] = []
        let pinning = CPUPinning.plan(requested: true)
        _ = try MeasurerScheduling.run(requested: true) { () throws in try pinning.withMeasurerPinned { () throws in
        for _ in 0..<7 {
            unlink(log)
            let sample = try launcher.launch(LaunchRequest(executablePath: exe, arguments: [exe],
                                                           environment: Self.environment(log: log), instrumented: true,
                                                           targetCPU: pinning.targetCPU))
            #expect(sample.outcome.kind == .success)
            // The loader's lines went to the FIFO, not to the program's stderr.
            #expect(sample.stderrHead.isEmpty)
            #expect(sample.firstOutputStream == .stdout)
            let lines = Self.readLog(log)
            let main = try #require(lines.first { $0.id == "main" })
            // Swift does this work after main starts: nothing self-timed runs before main.
            #expect(lines.allSatisfy { $0.startNs >= main.startNs })
            let measuredMain = try #require(sample.loader?.mainMs)
            mainErrors.append(abs(measuredMain - Double(main.startNs - sample.birthNs) / 1e6))
            let call = try #require(sample.loader?.initializers.first { $0.isProgram })
            programInit.append(try #require(call.durationMs))
        }
        } }
        let error = try #require(SampleStatistics.median(mainErrors))
        #expect(error <= 0.5, "main: per-run errors \(mainErrors) ms")
        #expect(try #require(SampleStatistics.median(programInit)) <= 0.5)
    }
}
