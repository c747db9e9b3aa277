import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import Testing

/// The session and the statistics over a scripted launcher: nothing is run.
struct MeasureSessionTests {
    /// Warm-up, then 5 rounds; each round is an instrumented and an uninstrumented launch.
    static func script() -> [LaunchSample] {
        var samples = [ScriptedLauncher.run(libMs: 50), ScriptedLauncher.run(libMs: 50, instrumented: false)]
        let lib: [Double] = [10, 11, 10.5, 30, 10.2]
        for ms in lib {
            samples += [ScriptedLauncher.run(libMs: ms), ScriptedLauncher.run(libMs: ms - 0.5, instrumented: false)]
        }
        return samples
    }

    @Test func seriesIsInterleavedAndSummarized() throws {
        let launcher = ScriptedLauncher(Self.script())
        var progress: [Int] = []
        let measurement = try MeasureSession(launcher: launcher).measure(
            command: ["/bin/true", "x"], environment: ["PATH=/usr/bin", "LD_DEBUG=all"],
            options: MeasureOptions(runs: 5, warmup: 1, timeoutSeconds: 2, pin: false, realtimeMeasurer: false)
        ) {
            progress.append($0.completed)
        }
        #expect(progress == Array(1...12))
        // ABBA order over all rounds (the warm-up is round 0): even rounds instrumented first.
        #expect(
            launcher.requests.map(\.instrumented) == [
                true, false, false, true, true, false, false, true, true, false, false, true,
            ])
        #expect(
            launcher.requests.allSatisfy {
                $0.timeoutSeconds == 2 && $0.arguments == ["/bin/true", "x"] && $0.targetCPU == nil
            })
        #expect(measurement.runs == 5 && measurement.warmup == 1 && !measurement.cold)
        #expect(measurement.conditions.environmentOverrides.contains("LD_DEBUG=all removed"))
        #expect(measurement.conditions.measurerScheduling == "SCHED_OTHER (real-time measurer disabled)")
        #expect(!measurement.conditions.pinning.pinned)

        let library = try #require(measurement.objects.first { $0.path == "/opt/app/libwork.so" })
        #expect(library.initializers?.samplesMs == [10, 11, 10.5, 30, 10.2])
        #expect(library.initializers?.medianMs == 10.5)
        #expect(library.initializers?.outliers == [3])
        #expect(library.mapped?.medianMs == 0.7)
        let program = try #require(measurement.objects.first { $0.role == .executable })
        #expect(program.path == "/bin/true" || program.path.hasSuffix("/true"))
        #expect(program.initializers?.medianMs == 1)
        #expect(measurement.milestones[.main]?.medianMs == 12.5)
        #expect(measurement.milestones[.exit]?.medianMs == 12.7)
        #expect(measurement.uninstrumented?.exit?.medianMs == 12.0)
        let ratio = try #require(measurement.observerEffect?.exitRatio)
        #expect(abs(ratio - 12.7 / 12.0) < 1e-9)
        #expect(measurement.loaderCounts?.startup?.symbolLookups == 100)
        #expect(measurement.status == .ok)
        #expect(measurement.warnings.contains { $0.kind == .unpinned })
        #expect(measurement.medianRun == 2)
    }

    @Test func launchSetupFailureStopsTheSeries() {
        let launcher = ScriptedLauncher([])
        #expect(throws: MeasureError.self) {
            _ = try MeasureSession(launcher: launcher).measure(
                command: ["/bin/true"], environment: [],
                options: MeasureOptions(runs: 1, warmup: 0))
        }
    }

    @Test func unknownCommandIsAnError() {
        let launcher = ScriptedLauncher([])
        #expect(throws: MeasureError.commandNotFound("premain-no-such-command")) {
            _ = try MeasureSession(launcher: launcher).measure(
                command: ["premain-no-such-command"], environment: ["PATH=/usr/bin"],
                options: MeasureOptions())
        }
        #expect(launcher.requests.isEmpty)
    }
}
