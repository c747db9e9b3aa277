import Foundation
import Glibc
import PremainLaunch
import PremainModel
import PremainTestSupport
import Testing

/// Opt-in (`PREMAIN_ACCURACY=1`): `premain measure`'s figures against the samples' self-timing.
/// scripts/bench-measure prints the same comparison, with a tighter target, as figures.
@Suite(.serialized, .enabled(if: Accuracy.enabled, Comment(rawValue: Accuracy.skipReason)))
struct MeasureAccuracyTests {
    @Test func cxxStaticInitInitializersMatchSelfTiming() throws {
        let (measurement, log) = try MeasureLaunchTests.measureCxxStaticInit()
        defer { unlink(log) }
        let counted = MeasureLaunchTests.countedRuns(log, warmup: 1)
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
        // The 40 ms of initializers run between loader done and main.
        let main = try #require(measurement.milestones.main?.medianMs)
        let done = try #require(measurement.milestones.loaderDone?.medianMs)
        #expect(main - done >= 40 - 0.5)
    }

    @Test func swiftStartupMainMatchesSelfTimedMain() throws {
        let exe = try Samples.path("swift-startup/swift-startup")
        let log = SelfTimingLog.temporaryPath("measure-log")
        defer { unlink(log) }
        let launcher = ProcessLauncher()
        var mainErrors: [Double] = []
        var programInit: [Double] = []
        let pinning = CPUPinning.plan(requested: true)
        _ = try MeasurerScheduling.run(requested: true) { () throws in try pinning.withMeasurerPinned { () throws in
        for _ in 0..<7 {
            unlink(log)
            let sample = try launcher.launch(LaunchRequest(executablePath: exe, arguments: [exe],
                                                           environment: MeasureLaunchTests.environment(log: log),
                                                           instrumented: true, targetCPU: pinning.targetCPU))
            let main = try #require(SelfTimingLog.lines(log).first { $0.id == "main" })
            let measuredMain = try #require(sample.loader?.mainMs)
            mainErrors.append(abs(measuredMain - Double(main.startNs - sample.birthNs) / 1e6))
            let call = try #require(sample.loader?.initializers.first { $0.isProgram })
            programInit.append(try #require(call.durationMs))
        }
        } }
        let error = try #require(SampleStatistics.median(mainErrors))
        #expect(error <= 0.5, "main: per-run errors \(mainErrors) ms")
        // Swift's work runs after main: the program's own initializers are next to nothing.
        #expect(try #require(SampleStatistics.median(programInit)) <= 0.5)
    }
}
