import Glibc
import PremainAudit
import PremainModel
import PremainSystem

/// Runs `premain trace`: measures the bias, traces the command `warmup + runs` times and
/// summarizes every function over the measured runs. Never prints; `progress` is told about
/// each run as it ends.
///
/// The ptrace engine (`TraceSession`) knows x86-64 only: int3 breakpoints, the x86-64
/// registers and calling convention, the entry instructions it emulates. On any other
/// architecture it is not compiled and `run` throws `TraceError.unsupportedArchitecture`.
public struct Tracer {
    public let options: TraceOptions

    public init(options: TraceOptions) {
        self.options = options
    }

    /// True where the ptrace engine is built: x86-64.
    public static var isSupported: Bool {
        #if arch(x86_64)
            return true
        #else
            return false
        #endif
    }

    /// The tracer thread's nice value during a run, when permitted (CAP_SYS_NICE): its wake-up
    /// latency at a return breakpoint is added to the call being timed.
    static let tracerNice: Int32 = -10

    /// Measures the bias (or takes `biasMs`), then traces the command `warmup + runs` times.
    /// Throws `TraceError` when tracing is not supported here, the command cannot be started or
    /// the bias cannot be measured; a target that crashes or times out is an outcome in the
    /// report, not an error.
    public func run(progress: (LaunchProgress) -> Void = { _ in }) throws(TraceError) -> TraceReport {
        guard Self.isSupported else { throw .unsupportedArchitecture }
        guard let first = options.command.first, !first.isEmpty else { throw .noCommand }
        guard let executable = CommandResolver.executable(for: first, environment: options.environment) else {
            throw .commandNotFound(first)
        }
        let pinning = Self.pinning(cpu: options.cpu)
        // Read before pinning, so that the allowed CPUs are premain's own.
        let conditions = MachineProbe.conditions(
            pinning: pinning, runs: options.runs, warmup: options.warmup, cold: false,
            binaryPath: executable, buildID: TargetProbe.probe(executable).buildID, environmentOverrides: [],
            stdin: options.stdinFD >= 0 ? "/dev/null" : "premain's own (--inherit-stdin)")
        // With --cpu the tracer thread is pinned for the whole series, calibration included.
        let (report, idleLatency) = try IdleLatencyGuard.run(requested: options.holdIdleLatency) {
            () throws(TraceError) in
            try pinning.withMeasurerPinned { () throws(TraceError) in
                try trace(executable, conditions: conditions, progress: progress)
            }
        }
        var held = report
        for index in held.measurements.indices { held.measurements[index].conditions.cpuIdleLatency = idleLatency }
        return held
    }

    private func trace(
        _ executable: String, conditions: LaunchConditions,
        progress: (LaunchProgress) -> Void
    ) throws(TraceError) -> TraceReport {
        let bias: TraceBias
        let total = options.warmup + options.runs
        if options.biasMs == nil {
            progress(LaunchProgress(completed: 0, total: total, phase: "measuring the tracer's bias"))
        }
        if let given = options.biasMs {
            bias = TraceBias(pairMs: given, costPerCallMs: nil, source: .given, calibrationCalls: 0)
        } else if let target = options.calibration {
            bias = try BiasCalibrator.measure(target, cpu: options.cpu, environment: options.environment)
        } else {
            throw .noCalibrationTarget("no calibration program and no --bias-ms")
        }
        let untilSymbol: String? = if case .symbol(let name) = options.until { name } else { nil }
        let planner = ProbePlanner(
            functionQueries: options.functions, untilSymbol: untilSymbol,
            debugLocator: DebugFileLocator(extraDirectories: options.debugDirectories))
        var records: [TraceRunRecord] = []
        progress(LaunchProgress(completed: 0, total: total))
        for index in 0..<total {
            let record = try Self.traceOnce(executable, options: options, planner: planner)
            progress(LaunchProgress(completed: index + 1, total: total))
            if index >= options.warmup { records.append(record) }
        }
        // /proc/PID/maps names files by their real path (libstdc++.so.6.0.30); measure and audit
        // use the loader's (libstdc++.so.6): name the objects of the program's closure as the
        // loader does. Objects opened later keep their real path.
        let names = Self.loaderNames(executable, environment: options.environment)
        for index in records.indices { records[index].rename(names) }
        var conditions = conditions
        conditions.measurerScheduling =
            !records.isEmpty && records.allSatisfy(\.tracerPriorityRaised)
            ? "nice \(Self.tracerNice) (the target keeps its own priority)"
            : "nice 0 (nice \(Self.tracerNice) needs CAP_SYS_NICE)"
        var measurement = TraceAggregator(biasMs: bias.pairMs, planner: planner).measurement(
            of: records, options: options, conditions: conditions)
        if let note = Self.setuidNote(executable, effectiveUser: geteuid()) { measurement.notes.insert(note, at: 0) }
        if let warning = DebugInfo.unavailableWarning { measurement.notes.insert(warning, at: 0) }
        return TraceReport(bias: bias, measurements: [measurement])
    }

    /// Real path → the path the loader opens, for every object of `executable`'s closure as
    /// `ClosureResolver` finds it (with `LD_LIBRARY_PATH` from `environment`).
    static func loaderNames(_ executable: String, environment: [String]) -> [String: String] {
        let libraryPath =
            environment.first { $0.hasPrefix("LD_LIBRARY_PATH=") }
            .map { $0.dropFirst("LD_LIBRARY_PATH=".count).split(separator: ":").map(String.init) } ?? []
        let resolver = ClosureResolver(
            options: ClosureOptions(libraryPath: libraryPath, findUnused: false, computeCosts: false))
        guard let closure = try? resolver.resolve(path: executable) else { return [:] }
        var names: [String: String] = [:]
        for object in closure.objects where object.realPath != object.path { names[object.realPath] = object.path }
        return names
    }

    /// A setuid or setgid program traced by an unprivileged user runs without its privileges
    /// (the kernel drops them under ptrace): say so, since its start-up differs.
    static func setuidNote(_ executable: String, effectiveUser: uid_t) -> String? {
        guard effectiveUser != 0, let info = LocalFiles.status(executable),
            info.st_mode & (S_ISUID | S_ISGID) != 0
        else { return nil }
        let kind = info.st_mode & S_ISUID != 0 ? "setuid" : "setgid"
        return
            "\(executable) is \(kind): under ptrace an unprivileged tracer runs it without those privileges, so its start-up here is not the one its users see"
    }

    /// One traced launch of `executable` with `options` (argv is `options.command`). Throws
    /// `TraceError.unsupportedArchitecture` where the ptrace engine is not built.
    static func traceOnce(
        _ executable: String, options: TraceOptions,
        planner: ProbePlanner
    ) throws(TraceError) -> TraceRunRecord {
        #if arch(x86_64)
            return try TraceSession(executable: executable, options: options, planner: planner).run()
        #else
            throw .unsupportedArchitecture
        #endif
    }

    /// With `cpu`, target and tracer share that CPU (every stop then wakes the tracer on the CPU
    /// the target just left, so a stop costs the same in every run); without it, neither is pinned.
    /// Pinned only when `cpu` is one of the `allowed` CPUs (`sched_getaffinity`): pinning to
    /// another fails, and the report must not claim it.
    static func pinning(cpu: Int32?, allowed: [Int] = CPUPinning.allowedCPUs()) -> CPUPinning {
        guard let cpu else {
            return CPUPinning(
                pinned: false, measurerCPU: nil, targetCPU: nil,
                reason: "no --cpu given; tracer and target run where the scheduler puts them")
        }
        guard allowed.contains(Int(cpu)) else {
            return CPUPinning(
                pinned: false, measurerCPU: nil, targetCPU: nil,
                reason: "CPU \(cpu) is not one this process may run on")
        }
        return CPUPinning(pinned: true, measurerCPU: Int(cpu), targetCPU: Int(cpu), reason: nil)
    }
}

/// Everything `premain trace` needs to know, already validated by the command line; each
/// traced run (`TraceSession`) reads the same options.
public struct TraceOptions: Sendable {
    /// argv of the target; `command[0]` is resolved through PATH when it has no slash.
    public var command: [String]
    /// Environment of the target as "NAME=value" (premain's own when built by the CLI).
    public var environment: [String]
    /// Where timing stops (`--until`, default first output).
    public var until: TraceWindowEnd = .firstOutput
    /// Calls after which a function is no longer timed (`--max-calls`).
    public var maxCalls: Int = 100
    /// `--function`: mangled or demangled names (with or without the parameter list).
    public var functions: [String] = []
    /// Measured runs (`--runs`).
    public var runs: Int = 5
    /// Runs before the measured ones, not counted (`--warmup`).
    public var warmup: Int = 1
    /// Pin the target (and the calibration) to this CPU.
    public var cpu: Int32?
    /// `--debug-dir`: searched before /usr/lib/debug for separate debug files.
    public var debugDirectories: [String] = []
    /// Seconds before a run is killed; `nil` for no limit.
    public var timeoutSeconds: Double?
    /// A bias to use instead of measuring one (`--bias-ms`).
    public var biasMs: Double?
    /// The empty function traced at start to measure the bias; required when `biasMs` is nil.
    public var calibration: CalibrationTarget?
    /// Descriptor for the target's stdout/stderr (-1: premain's own).
    public var outputFD: Int32 = -1
    /// Descriptor for the target's stderr when it is not `outputFD`'s (-1: as `outputFD`).
    public var stderrFD: Int32 = -1
    /// `measure --until SYMBOL`: the child makes this FIFO + its pid for `LD_DEBUG_OUTPUT`.
    public var fifoPrefix: String?
    /// `measure --until SYMBOL`: the target cgroup's `cgroup.procs` (-1: none).
    public var cgroupProcsFD: Int32 = -1
    /// A folder open for the target to start in (`fchdir` before exec), or -1 for premain's own.
    public var cwdFD: Int32 = -1
    /// Told the pid and the birth time (CLOCK_MONOTONIC ns) once the target has exec'd.
    public var spawned: (@Sendable (Int32, UInt64) -> Void)?
    /// Descriptor for the target's stdin (-1: premain's own, `--inherit-stdin`); the CLI
    /// passes /dev/null by default (the conditions say "/dev/null" for any descriptor).
    public var stdinFD: Int32 = -1
    /// Hold `/dev/cpu_dma_latency` at 0 during calibration and runs (`IdleLatencyGuard`), so a
    /// stop does not wait for a halted CPU to wake (`--allow-idle` turns it off).
    public var holdIdleLatency = true
    /// Keep every counted run's calls with their start times (`TraceMeasurement.timelines`),
    /// for `--export-trace` and the HTML report.
    public var keepTimelines = false

    public init(command: [String], environment: [String]) {
        self.command = command
        self.environment = environment
    }
}

/// A program that calls an empty function `calls` times, traced to measure the bias.
public struct CalibrationTarget: Sendable {
    /// The program (an absolute path).
    public var executable: String
    /// Its argv, including argv[0].
    public var arguments: [String]
    /// The empty function, as `--function` takes it.
    public var symbol: String
    /// How many times the program calls it.
    public var calls: Int

    public init(executable: String, arguments: [String], symbol: String, calls: Int) {
        self.executable = executable
        self.arguments = arguments
        self.symbol = symbol
        self.calls = calls
    }
}

/// Why `premain trace` could not trace at all. A target that crashes, fails or times out is an
/// outcome in the report instead.
public enum TraceError: Error, Equatable, CustomStringConvertible, Sendable {
    /// This is not x86-64, the only architecture the ptrace engine knows.
    case unsupportedArchitecture
    /// The command line is empty.
    case noCommand
    /// `command[0]` has no slash and names no executable file in PATH.
    case commandNotFound(String)
    /// The program (path) could not be started (reason: the `execve` or `fork` error).
    case cannotStart(String, String)
    /// The program did not stop at its exec under PTRACE_TRACEME.
    case notStoppedAtExec(String)
    /// A ptrace request failed while the run was set up.
    case ptrace(String)
    /// The bias could not be measured: no calibration program, or its function was not called.
    case noCalibrationTarget(String)

    /// One line, lowercase, no trailing period.
    public var description: String {
        switch self {
        case .unsupportedArchitecture: return "trace is supported on x86-64 only"
        case .noCommand: return "no command to trace"
        case .commandNotFound(let name): return "command not found: \(name)"
        case .cannotStart(let path, let reason): return "cannot start \(path): \(reason)"
        case .notStoppedAtExec(let path): return "\(path) did not stop at exec (is ptrace allowed?)"
        case .ptrace(let message): return message
        case .noCalibrationTarget(let message): return "cannot measure the tracer's bias: \(message)"
        }
    }
}

/// Measures what one breakpoint pair costs on this machine, by tracing an empty function the
/// same way as real ones.
public enum BiasCalibrator {
    /// Traces `target` `rounds` times and returns the lowest of the rounds' median round trips
    /// (the first tenth of each round's calls is dropped as cold). Unpinned, the scheduler puts
    /// tracer and target on one CPU or on two from one launch to the next, and the round trip
    /// differs (about 9 µs against 30 µs here); the lowest median never removes more than a
    /// stop costs. The rounds share one planner, so each object is read once. Throws when the
    /// function was never called.
    public static func measure(
        _ target: CalibrationTarget, cpu: Int32?, environment: [String],
        rounds: Int = 3
    ) throws(TraceError) -> TraceBias {
        var options = TraceOptions(command: target.arguments, environment: environment)
        options.functions = [target.symbol]
        options.until = .exit
        options.maxCalls = target.calls + 1
        options.cpu = cpu
        let planner = ProbePlanner(
            functionQueries: options.functions, untilSymbol: nil,
            debugLocator: DebugFileLocator())
        var best: TraceBias?
        for _ in 0..<max(1, rounds) {
            let round = try measureOnce(target, options: options, planner: planner)
            if best == nil || round.pairMs < best?.pairMs ?? 0 { best = round }
        }
        guard let best else { throw .noCalibrationTarget("no round") }
        return best
    }

    static func measureOnce(
        _ target: CalibrationTarget, options: TraceOptions,
        planner: ProbePlanner
    ) throws(TraceError) -> TraceBias {
        let record = try Tracer.traceOnce(target.executable, options: options, planner: planner)
        let calls = Self.calls(of: target.symbol, in: record)
        guard calls.count >= 5 else {
            throw .noCalibrationTarget("\(target.symbol) in \(target.executable) was called \(calls.count) times")
        }
        let warm = Array(calls.dropFirst(calls.count / 10))
        let raw = warm.map { Double($0.rawNs) / 1e6 }
        let cost = warm.map { Double($0.rawNs + $0.handlingNs) / 1e6 }
        guard let pair = SampleStatistics.median(raw), let perCall = SampleStatistics.median(cost) else {
            throw .noCalibrationTarget("no samples")
        }
        // A traced call stops twice: the unseen halves of both stops add up to one more pair.
        return TraceBias(pairMs: pair, costPerCallMs: perCall + pair, source: .measured, calibrationCalls: warm.count)
    }

    /// The completed calls, in order, of the function `symbol` names as `--function` takes it:
    /// the mangled name, the demangled name, or the demangled name without its parameter list
    /// (`premain.premainCalibrationEmpty` for `$s7premain0A16CalibrationEmptyyyF`). Other
    /// traced functions (the target's initializers) are left out. `[]` when it was not called.
    static func calls(of symbol: String, in record: TraceRunRecord) -> [TracedCall] {
        record.functions.values
            .filter { ProbePlanner.matches(symbol, mangled: $0.probe.symbol, demangled: $0.probe.demangled) }
            .flatMap(\.calls)
    }
}
