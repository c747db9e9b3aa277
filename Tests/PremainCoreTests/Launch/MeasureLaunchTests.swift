import Foundation
import Glibc
import PremainLaunch
import PremainModel
import PremainTestSupport
import Testing

/// Real launches of the self-timed samples: what `premain measure` saw (objects, runs,
/// milestones, conditions, outcomes), not how long it took (scripts/bench-measure prints that).
@Suite(.serialized) struct MeasureLaunchTests {
    /// This process's environment without the samples' variables, plus `PREMAIN_SAMPLE_LOG=log`.
    static func environment(log: String) -> [String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PREMAIN_SAMPLE") }
            .map { "\($0.key)=\($0.value)" } + ["PREMAIN_SAMPLE_LOG=\(log)"]
    }

    /// The counted runs' self-timed lines, id → duration: every run (the warm-up first) logs
    /// each id once and "main" last, so the log splits into runs at "main".
    static func countedRuns(_ log: String, warmup: Int) -> [[String: Double]] {
        var perRun: [[String: Double]] = [[:]]
        for line in SelfTimingLog.lines(log) {
            if line.id == "main" { perRun.append([:]) } else { perRun[perRun.count - 1][line.id] = line.durationMs }
        }
        return Array(perRun.dropFirst(warmup).dropLast())
    }

    /// cxx-static-init measured 7 times after 1 warm-up, with its self-timing log.
    static func measureCxxStaticInit() throws -> (LaunchMeasurement, log: String) {
        let exe = try Samples.path("cxx-static-init/cxx-static-init")
        let log = SelfTimingLog.temporaryPath("measure-log")
        let session = MeasureSession(launcher: ProcessLauncher())
        let measurement = try session.measure(
            command: [exe], environment: environment(log: log),
            options: MeasureOptions(runs: 7, warmup: 1, observerSeries: false))
        return (measurement, log)
    }

    @Test func cxxStaticInitObjectsMilestonesAndConditions() throws {
        let (measurement, log) = try Self.measureCxxStaticInit()
        defer { unlink(log) }
        #expect(measurement.status == .ok)
        #expect(measurement.conditions.pinning.pinned == (CPUPinning.allowedCPUs().count >= 2))
        #expect(measurement.conditions.measurerScheduling != nil)
        #expect(measurement.conditions.environmentOverrides.contains(LoaderDebugChannels.environmentEntry))
        #expect(measurement.conditions.buildID != nil)
        // 1 warm-up and 7 counted runs, each of which ran all five initializers, then main.
        let counted = Self.countedRuns(log, warmup: 1)
        #expect(counted.count == 7)
        #expect(
            counted.allSatisfy {
                Set($0.keys) == ["lib:registry.cpp", "lib:plugins.cpp", "lib:ctor_c", "exe:ctor_101", "exe:main.cpp"]
            })
        let library = try #require(measurement.objects.first { $0.path.hasSuffix("/libinit.so") })
        let program = try #require(measurement.objects.first { $0.role == .executable })
        for object in [library, program] {
            let runs = try #require(object.initializers?.samplesMs, "\(object.path) has no initializer times")
            #expect(runs.count == 7, "\(object.path): \(runs)")
        }
        // Loader order: the loader is done before the initializers run, main after them.
        let main = try #require(measurement.milestones[.main]?.medianMs)
        let done = try #require(measurement.milestones[.loaderDone]?.medianMs)
        #expect(done <= main)
        #expect(try #require(measurement.loaderCounts?.startup?.symbolLookups) > 0)
    }

    @Test func swiftStartupReachesMainBeforeItsSwiftWork() throws {
        let exe = try Samples.path("swift-startup/swift-startup")
        let log = SelfTimingLog.temporaryPath("measure-log")
        defer { unlink(log) }
        let launcher = ProcessLauncher()
        for _ in 0..<3 {
            unlink(log)
            let sample = try launcher.launch(
                LaunchRequest(
                    executablePath: exe, arguments: [exe],
                    environment: Self.environment(log: log), instrumented: true))
            #expect(sample.outcome.kind == .success)
            // The loader's lines went to the FIFO, not to the program's stderr.
            #expect(sample.stderrHead.isEmpty)
            #expect(sample.firstOutputStream == .stdout)
            let lines = SelfTimingLog.lines(log)
            let main = try #require(lines.first { $0.id == "main" })
            // Swift does this work after main starts: nothing self-timed runs before main.
            #expect(lines.allSatisfy { $0.startNs >= main.startNs })
            #expect(Set(lines.map(\.id)) == ["main", "swift:defaultArgument", "swift:lazyGlobal"])
            #expect(sample.loader?.mainMs != nil, "the loader's transfer to main is stamped")
            let call = try #require(sample.loader?.initializers.first { $0.isProgram })
            #expect(call.durationMs != nil)
        }
    }
}
