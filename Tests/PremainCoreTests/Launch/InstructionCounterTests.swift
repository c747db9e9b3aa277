import Foundation
import PremainLaunch
import PremainModel
import PremainTestSupport
import Testing

/// Real counts under valgrind: repeatability on a Swift binary, the work pair's constructor,
/// and runs that fail. Asserts counts, never times.
@Suite(
    .serialized,
    .enabled(
        if: HostFacts.valgrind != nil,
        "valgrind not installed: scripts/setup installs the Debian package valgrind"))
struct InstructionCounterTests {
    /// This process's environment without the samples' variables, plus `extra`.
    static func environment(_ extra: [String] = []) -> [String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PREMAIN_SAMPLE") }
            .map { "\($0.key)=\($0.value)" } + extra
    }

    /// The work pair's loop: 500000 iterations of 6 instructions (gcc 12 -O1), plus entry and
    /// `ret` (samples/README.md).
    static let workIterations: UInt64 = 500_000

    @Test func swiftBinaryCountsTheSameFiveTimes() throws {
        let app = try Samples.path("swift-startup/swift-startup")
        // No busy-waits after main (they read the clock), so the total repeats too.
        let environment = Self.environment(["PREMAIN_SAMPLE_COST_SERVICE_MS=0", "PREMAIN_SAMPLE_COST_GLOBAL_MS=0"])
        let counts = try InstructionCounter().count(
            command: [app], environment: environment, timeoutSeconds: 300, runs: 5)
        #expect(counts.runs == 5)
        #expect(counts.differingRuns == 0, "\(counts.differingRuns) of 5 runs counted differently")
        let beforeMain = try #require(counts.beforeMain)
        let firstOutput = try #require(counts.toFirstOutput)
        #expect(beforeMain < firstOutput && firstOutput <= counts.total)
        #expect(counts.exitStatus == 0)
        #expect(counts.notes.isEmpty, "\(counts.notes)")
        // The Swift runtime's static initializers run before main, the executable's own too.
        #expect(counts.objects.contains { $0.object.hasSuffix("/libswiftCore.so") && $0.instructions > 0 })
        #expect(counts.objects.contains { $0.object == app })
        #expect(counts.functions.contains { $0.object == app && $0.displayName == "swift_image_constructor()" })
        // The lazy global and the default argument run after main, so they are not listed.
        #expect(!counts.functions.contains { $0.kind == .swiftLazyGlobal || $0.kind == .swiftDefaultArgument })
    }

    @Test func workHeadAddsItsConstructorsLoopBeforeMain() throws {
        let counter = InstructionCounter()
        let base = try counter.count(
            command: [try Samples.path("pairs/work-base/app")], environment: Self.environment(),
            timeoutSeconds: 120)
        let head = try counter.count(
            command: [try Samples.path("pairs/work-head/app")], environment: Self.environment(),
            timeoutSeconds: 120)
        let constructor = try #require(head.functions.first { $0.symbol == "premain_work_ctor" })
        #expect(constructor.kind == .constructorFunction)
        #expect(constructor.calls == 1)
        #expect(constructor.instructions == Self.workIterations * 6 + 2)
        #expect(head.functions.first == constructor)
        #expect(!base.functions.contains { $0.symbol == "premain_work_ctor" })
        // Besides the constructor, head differs from base by the loader's work on one more
        // .init_array entry: a few dozen instructions.
        let baseMain = try #require(base.beforeMain)
        let headMain = try #require(head.beforeMain)
        #expect(headMain > baseMain + constructor.instructions)
        #expect(headMain - baseMain - constructor.instructions < 1000)
        // The executable's initializers: the constructor and frame_dummy.
        let executable = try #require(head.objects.first)
        #expect(executable.object.hasSuffix("/work-head/app"))
        #expect(executable.calls == 2)
        // printf's buffer is written at exit: output comes after main, in both.
        #expect(try #require(head.toFirstOutput) > headMain)
        #expect(try #require(base.toFirstOutput) > baseMain)
    }

    /// Issue 23, defect 11: `measure --instructions -- sh -c 'exec ./app'` exited 70
    /// ("callgrind's callgrind.out.N: no events: line"): the exec left the first image's exit
    /// dump empty. valgrind follows the exec now and the last image is counted, with a note; the
    /// shell's three write dumps, left under the same names, are not added in.
    @Test func anExecChainCountsItsLastImage() throws {
        let app = try Samples.path("pairs/work-head/app")
        let counter = InstructionCounter()
        let direct = try counter.count(command: [app], environment: Self.environment(), timeoutSeconds: 120)
        #expect(!direct.notes.contains { $0.contains("replaced itself") }, "\(direct.notes)")
        for command in [["/bin/sh", "-c", "echo one; echo two; echo three; exec \"$0\"", app], ["/usr/bin/env", app]] {
            let counts = try counter.count(command: command, environment: Self.environment(), timeoutSeconds: 120)
            let constructor = try #require(counts.functions.first { $0.symbol == "premain_work_ctor" }, "\(command)")
            #expect(constructor.instructions == Self.workIterations * 6 + 2)
            #expect(counts.objects.first?.object.hasSuffix("/work-head/app") == true)
            #expect(counts.beforeMain != nil && counts.toFirstOutput != nil)
            #expect(
                counts.notes.contains { $0.hasPrefix("the program replaced itself (exec): counted is its last image") },
                "\(counts.notes)")
            // The same image as the direct run, up to what a longer environment costs the loader.
            let difference = counts.total > direct.total ? counts.total - direct.total : direct.total - counts.total
            #expect(difference < 2000, "\(command): \(counts.total) against \(direct.total)")
        }
    }

    @Test func failedRunsAreTypedErrors() throws {
        let counter = InstructionCounter()
        let environment = Self.environment()
        func failure(_ command: [String], timeout: Double? = 120) -> InstructionCountError? {
            do {
                _ = try counter.count(command: command, environment: environment, timeoutSeconds: timeout)
                return nil
            } catch {
                return error
            }
        }
        guard case .runFailed(let crash)? = failure([try Samples.path("faults/crash-in-init")]) else {
            Issue.record("crash-in-init did not fail the count")
            return
        }
        #expect(crash.contains("signal 11"), "\(crash)")
        guard case .runFailed(let loader)? = failure([try Samples.path("closure/missing/needs-missing")]) else {
            Issue.record("needs-missing did not fail the count")
            return
        }
        #expect(loader.contains("libdoesnotexist.so"), "\(loader)")
        guard case .runFailed(let hang)? = failure([try Samples.path("faults/hang")], timeout: 3) else {
            Issue.record("hang did not time out")
            return
        }
        #expect(hang.contains("did not exit within the 3.0 s timeout"), "\(hang)")
        #expect(failure(["premain-no-such-command"]) == .commandNotFound("premain-no-such-command"))
        #expect(failure([]) == .noCommand)
        // A non-zero exit is counted, with its status.
        let failing = try counter.count(
            command: [try Samples.path("faults/exit-nonzero")], environment: environment,
            timeoutSeconds: 120)
        #expect(failing.exitStatus == 3)
        #expect(failing.beforeMain != nil)
    }
}

/// Without valgrind: the typed error, on every machine.
struct InstructionCounterMissingValgrindTests {
    @Test func missingValgrindIsATypedError() {
        let given = InstructionCounter(valgrindPath: "/nonexistent/valgrind")
        #expect(throws: InstructionCountError.valgrindNotFound("/nonexistent/valgrind")) {
            try given.count(command: ["/bin/true"], environment: [], timeoutSeconds: 10)
        }
        let searched = InstructionCounter()
        #expect(throws: InstructionCountError.valgrindNotFound(nil)) {
            try searched.count(command: ["/bin/true"], environment: ["PATH=/nonexistent"], timeoutSeconds: 10)
        }
        #expect(
            InstructionCountError.valgrindNotFound(nil).description
                == "valgrind not found; install the Debian package valgrind")
        #expect(
            InstructionCountError.valgrindNotFound("/x/valgrind").description
                == "valgrind not found at /x/valgrind; install the Debian package valgrind")
    }
}
