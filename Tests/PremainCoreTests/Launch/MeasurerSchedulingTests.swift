import Foundation
import Glibc
import PremainLaunch
import PremainModel
import PremainTestSupport
import Testing

/// The measurer must not hold a CPU while it waits for the target: a measurer that polls without
/// sleeping (pinned to its own CPU, at SCHED_FIFO) leaves every other runnable task of the machine
/// to the target's CPU, and under a load that comes and goes time to main then jumps by scheduler
/// quanta (issue 34, defect 0). Asserted through the measuring thread's own CPU time while the
/// target sleeps before main, not through any wall-clock duration.
@Suite(.serialized) struct MeasurerSchedulingTests {
    /// A program whose constructor sleeps `sleepMs` before main, built once per test run.
    static func sleepingProgram(sleepMs: Int) throws -> String {
        let folder = try TemporaryFolders.make("sleeping-ctor")
        let source = folder + "/sleeping.c"
        let program = """
            #include <stdio.h>
            #include <time.h>
            __attribute__((constructor)) static void premain_sleeping_ctor(void) {
                struct timespec pause = { \(sleepMs / 1000), \((sleepMs % 1000) * 1_000_000) };
                while (nanosleep(&pause, &pause) != 0) {}
            }
            int main(void) { puts("awake"); return 0; }
            """
        try program.write(toFile: source, atomically: true, encoding: .utf8)
        let result = try Shell.run(["gcc", "-O1", source, "-o", folder + "/sleeping"])
        guard result.status == 0 else { throw LaunchError("gcc: \(result.stderr)") }
        return folder + "/sleeping"
    }

    /// CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), in milliseconds.
    static func threadCPUMs() -> Double {
        var now = timespec()
        _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) * 1e3 + Double(now.tv_nsec) / 1e6
    }

    @Test func measurerSleepsWhileThePinnedTargetSleepsBeforeMain() throws {
        let sleepMs = 400
        let exe = try Self.sleepingProgram(sleepMs: sleepMs)
        let pinning = CPUPinning.plan(requested: true)
        let launcher = ProcessLauncher()
        let request = LaunchRequest(
            executablePath: exe, arguments: [exe], environment: ["PATH=/usr/bin:/bin"],
            instrumented: true, targetCPU: pinning.targetCPU)
        let (sample, cpuMs) = try pinning.withMeasurerPinned { () throws -> (LaunchSample, Double) in
            let before = Self.threadCPUMs()
            let sample = try launcher.launch(request)
            return (sample, Self.threadCPUMs() - before)
        }
        #expect(sample.outcome.kind == .success)
        // The loader's lines still arrive and main is still stamped.
        #expect(sample.loader?.mainMs != nil)
        #expect(sample.loader?.initializers.isEmpty == false)
        // A measurer that spun burnt 145 ms of the 400 ms sleep on a busy machine (2026-12-03);
        // one that sleeps in poll uses about 5 ms to launch and read the loader's lines.
        #expect(
            cpuMs < Double(sleepMs) / 10, "the measuring thread used \(cpuMs) ms of CPU during a \(sleepMs) ms sleep")
    }
}
