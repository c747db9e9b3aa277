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

/// Faulty targets: each is reported as what it is, and no process of its group survives.
@Suite(.serialized) struct MeasureFaultTests {
    let launcher = ProcessLauncher()

    func launch(
        _ relative: String, timeout: Double? = 20, instrumented: Bool = true,
        extra: [String] = []
    ) throws -> LaunchSample {
        let exe = try Samples.path(relative)
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" } + extra
        return try launcher.launch(
            LaunchRequest(
                executablePath: exe, arguments: [exe], environment: environment,
                instrumented: instrumented, timeoutSeconds: timeout))
    }

    func expectNothingLeft(_ sample: LaunchSample) {
        #expect(sample.processGroup > 0)
        #expect(
            ProcessTable.members(ofGroup: sample.processGroup).isEmpty,
            "processes left in group \(sample.processGroup)")
    }

    @Test func crashInInitializerIsASignalDeath() throws {
        let sample = try launch("faults/crash-in-init")
        #expect(sample.outcome.kind == .signaled)
        #expect(sample.outcome.signal == SIGSEGV)
        #expect(sample.outcome.message.contains("signal 11"))
        #expect(sample.loader?.mainMs == nil)
        let program = try #require(sample.loader?.initializers.last)
        #expect(program.isProgram && program.durationMs == nil)
        #expect(sample.exitMs != nil)
        expectNothingLeft(sample)
    }

    @Test func hangIsTimedOutAndKilled() throws {
        // The sample never exits by itself: the outcome says the timeout ended it.
        let sample = try launch("faults/hang", timeout: 0.5)
        #expect(sample.outcome.kind == .timedOut)
        #expect(sample.exitMs == nil)
        #expect(sample.loader?.mainMs != nil)
        #expect(sample.firstOutputMs != nil)
        expectNothingLeft(sample)
    }

    @Test func missingLibraryIsNamed() throws {
        let sample = try launch("closure/missing/needs-missing")
        #expect(sample.outcome.kind == .missingLibrary)
        #expect(sample.outcome.exitStatus == 127)
        #expect(sample.outcome.message.contains("libdoesnotexist.so"))
        #expect(sample.loader?.loaderDoneMs == nil)
        expectNothingLeft(sample)
    }

    @Test(arguments: ["faults/forks-child", "faults/forks-in-init"])
    func lingeringChildIsKilled(sample relative: String) throws {
        // The child sleeps 30 s: had the launch waited for it, it would have exited by itself
        // and nothing would have been killed.
        let sample = try launch(relative, extra: ["PREMAIN_SAMPLE_CHILD_SLEEP_S=30"])
        #expect(sample.outcome.kind == .success)
        #expect(sample.outcome.lingeringProcessesKilled >= 1)
        expectNothingLeft(sample)
    }

    @Test func nonZeroExitIsReported() throws {
        let sample = try launch("faults/exit-nonzero")
        #expect(sample.outcome.kind == .exitNonZero)
        #expect(sample.outcome.exitStatus == 3)
        #expect(sample.firstOutputStream == .stdout)
        expectNothingLeft(sample)
    }

    @Test func execFailureIsAnOutcome() throws {
        let sample = try launcher.launch(
            LaunchRequest(
                executablePath: "/nonexistent/premain-target", arguments: ["x"],
                environment: [], instrumented: true))
        #expect(sample.outcome.kind == .execFailed)
        #expect(sample.outcome.message.contains("No such file"))
        expectNothingLeft(sample)
    }

    @Test func uninstrumentedLaunchDropsTheUsersLDDebug() throws {
        let sample = try launch("c-hello/c-hello", instrumented: false, extra: ["LD_DEBUG=files"])
        #expect(sample.outcome.kind == .success)
        #expect(sample.loader == nil)
        #expect(sample.stderrHead.isEmpty, "LD_DEBUG reached the target: \(sample.stderrHead)")
        #expect(sample.firstOutputStream == .stdout)
        #expect(sample.cpuMs != nil)
        expectNothingLeft(sample)
    }

    @Test func staticBinaryHasOutputAndExitButNoLoaderPhases() throws {
        let exe = try Samples.path("c-hello/c-hello-static")
        #expect(TargetProbe.probe(exe).loaderPhasesMissing?.contains("statically linked") == true)
        let measurement = try MeasureSession(launcher: launcher).measure(
            command: [exe], environment: [], options: MeasureOptions(runs: 3, warmup: 0))
        #expect(measurement.status == .ok)
        #expect(measurement.milestones[.firstOutput]?.samplesMs.count == 3)
        #expect(measurement.milestones[.exit]?.samplesMs.count == 3)
        #expect(measurement.milestones[.main] == nil)
        #expect(measurement.loaderPhasesMissing?.contains("statically linked") == true)
        #expect(measurement.uninstrumented == nil)
    }

    @Test func failedSeriesIsMarked() throws {
        let exe = try Samples.path("faults/crash-in-init")
        let measurement = try MeasureSession(launcher: launcher).measure(
            command: [exe], environment: [], options: MeasureOptions(runs: 3, warmup: 0, observerSeries: false))
        #expect(measurement.status == .failed)
        #expect(measurement.failures == ["3 of 3 runs: killed by signal 11 (Segmentation fault)"])
        #expect(measurement.warnings.contains { $0.kind == .failedRuns })
        #expect(measurement.milestones[.main] == nil)
        #expect(measurement.milestones[.loaderDone]?.samplesMs.count == 3)
    }

    @Test func coldSeriesEvictsAndChecksResidency() throws {
        // A private copy: other tests run the shared sample in parallel, and a page of a library
        // that another process maps stays resident. RUNPATH $ORIGIN makes the copy load its own
        // libinit.so.
        let folder = TemporaryFolders.root + "/premain-cold-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["cxx-static-init", "libinit.so"] {
            try Shell.copyExecutable(try Samples.path("cxx-static-init/" + name), to: folder + "/" + name)
        }
        let exe = folder + "/cxx-static-init"
        let measurement = try MeasureSession(launcher: launcher).measure(
            command: [exe], environment: [],
            options: MeasureOptions(runs: 3, warmup: 0, cold: true, observerSeries: false))
        #expect(measurement.cold && measurement.conditions.cold)
        let residency = try #require(measurement.coldResidency)
        let library = try #require(residency.first { $0.path.hasSuffix("/libinit.so") })
        #expect(library.pages > 0)
        #expect(library.residentPagesMedian == 0, "libinit.so is mapped by no other process, so eviction must empty it")
        #expect(residency.contains { $0.path.hasSuffix("/libc.so.6") })
        #expect(measurement.status == .ok)
    }
}
