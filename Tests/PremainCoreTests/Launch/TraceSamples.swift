import Glibc
import PremainLaunch
import PremainModel
import PremainTestSupport
import Testing

/// The samples for the trace tests, in a folder of their own: a copy of the project's samples
/// (built once per test run, see `Samples`; copied so that no other suite runs the same files
/// while a test looks for processes left behind) plus a tiny calibration program and the C
/// programs only these tests need. A missing compiler is a test failure.
enum TraceSamples {
    struct Built: Sendable {
        /// Where our copy of the project's samples is.
        var samples: String
        /// Where the trace tests' own programs and logs are.
        var directory: String
        var failure: String?
        /// A project sample (`cxx-static-init/cxx-static-init`) or one of ours (`calibrate`).
        func path(_ relative: String) -> String {
            relative.contains("/") ? "\(samples)/\(relative)" : "\(directory)/\(relative)"
        }
    }

    static let built: Built = build()

    /// Runs `command` with bash; its exit status, or -1 when bash cannot start.
    static func shell(_ command: String) -> Int32 {
        (try? Shell.run(["bash", "-c", command]).status) ?? -1
    }

    /// Two functions of one instruction each, packed next to each other (one 8-byte word),
    /// called alternately: the breakpoints of both entries share a word.
    static let adjacentSource = """
        __attribute__((noinline)) void premain_adjacent_a(void) { __asm__ volatile(""); }
        __attribute__((noinline)) void premain_adjacent_b(void) { __asm__ volatile(""); }
        int main(void) { for (int i = 0; i < 20; i++) { premain_adjacent_a(); premain_adjacent_b(); } return 0; }
        """

    /// A constructor that runs /bin/true with posix_spawn (glibc: clone with CLONE_VM|CLONE_VFORK,
    /// so the child shares the parent's memory and its breakpoints until it execs).
    static let spawnerSource = """
        #include <spawn.h>
        #include <stdio.h>
        #include <sys/wait.h>
        extern char **environ;
        __attribute__((constructor)) void premain_spawn_ctor(void) {
            for (int i = 0; i < 3; i++) {
                pid_t pid; char *argv[] = { "true", NULL };
                if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) == 0) waitpid(pid, NULL, 0);
            }
        }
        int main(void) { puts("spawner: main reached"); return 0; }
        """

    /// A recursive function: six nested calls of one function on one thread, each return
    /// breakpoint at the same address.
    static let recursiveSource = """
        __attribute__((noinline)) int premain_recurse(int n) { if (n <= 0) return 0; int r = premain_recurse(n - 1) + 1; __asm__ volatile(""); return r; }
        int main(void) { return premain_recurse(5) == 5 ? 0 : 1; }
        """

    static let calibrateSource = """
        #include <stdlib.h>
        __attribute__((noinline)) void premain_calibration_empty(void) { __asm__ volatile(""); }
        int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 200; for (int i = 0; i < n; i++) premain_calibration_empty(); return 0; }
        """

    private static func build() -> Built {
        let original: String
        switch Samples.directory {
        case .success(let folder): original = folder
        case .failure(let error): return Built(samples: "", directory: "", failure: error.message)
        }
        let directory: String
        do {
            directory = try TemporaryFolders.make("trace-tests")
        } catch {
            return Built(
                samples: "", directory: "", failure: "cannot make a folder for the trace test programs: \(error)")
        }
        for (name, source) in [
            ("calibrate", calibrateSource), ("adjacent", adjacentSource), ("spawner", spawnerSource),
            ("recursive", recursiveSource),
        ] {
            let file = fopen("\(directory)/\(name).c", "w")
            fputs(source + "\n", file)
            fclose(file)
        }
        let samples = directory + "/samples"
        let status = shell(
            """
            cp -a '\(original)' '\(samples)' && cd '\(directory)' && { gcc -O1 -g calibrate.c -o calibrate && \
            gcc -O1 -g -fcf-protection=none -falign-functions=1 -fno-reorder-functions adjacent.c -o adjacent && \
            gcc -O1 -g spawner.c -o spawner && gcc -O0 -g recursive.c -o recursive; } > build.log 2>&1
            """)
        return Built(
            samples: samples, directory: directory,
            failure: status == 0
                ? nil : "building the trace test programs failed (\(status)), see \(directory)/build.log")
    }

    static var calibration: CalibrationTarget {
        CalibrationTarget(
            executable: built.path("calibrate"), arguments: ["calibrate", "300"],
            symbol: "premain_calibration_empty", calls: 300)
    }

    static var environment: [String] {
        var result: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            result.append(String(cString: entry))
            pointer += 1
        }
        return result
    }
}

extension TraceSamples {
    /// Processes still running a program of our folder (the samples' copy included), or stopped under
    /// ptrace by this test process (scans /proc). Empty when the tracer cleaned up.
    static func leftovers() -> [String] {
        let me = getpid()
        return ProcessScan.all().filter { process in
            process.pid != me
                && ((!built.directory.isEmpty && process.executable.hasPrefix(built.directory + "/"))
                    || process.tracer == me)
        }.map { "\($0.pid) \($0.executable) tracer \($0.tracer)" }
    }
}

extension TraceSamples {
    /// What one breakpoint pair costs on this machine, calibrated once per process.
    static let bias: Result<TraceBias, any Error> = Result { () throws -> TraceBias in
        try BiasCalibrator.measure(calibration, cpu: nil, environment: environment)
    }

    /// Options to trace `command` (with this process's environment plus `extra`) with the
    /// calibrated bias: `runs` runs, no warm-up, up to `until`, 20 s timeout. Fails the test
    /// when the programs could not be built or the bias not calibrated.
    static func options(
        _ command: [String], environment extra: [String] = [], until: TraceWindowEnd = .exit,
        runs: Int = 1
    ) throws -> TraceOptions {
        try #require(built.failure == nil, "\(built.failure ?? "")")
        var options = TraceOptions(command: command, environment: environment + extra)
        options.biasMs = try bias.get().pairMs
        options.runs = runs
        options.warmup = 0
        options.until = until
        options.timeoutSeconds = 20
        return options
    }

    /// Traces with `options`, the target's output going to /dev/null; the one measurement.
    static func measure(_ options: TraceOptions) throws -> TraceMeasurement {
        var options = options
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(devNull) }
        options.outputFD = devNull
        return try #require(try Tracer(options: options).run().measurements.first)
    }
}
