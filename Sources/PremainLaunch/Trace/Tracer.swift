import PremainAudit
import PremainModel

/// Runs `premain trace`: measures the bias, traces the command `warmup + runs` times and
/// summarizes every function over the measured runs. Never prints; `progress` is told about
/// each run as it ends.
public struct Tracer {
    public let options: TraceOptions

    public init(options: TraceOptions) {
        self.options = options
    }

    /// What `progress` is told.
    public struct Progress: Sendable {
        public var run: Int
        public var total: Int
        public var isWarmup: Bool
        public var outcome: String
    }

    /// Measures the bias (or takes `biasMs`), then traces the command `warmup + runs` times.
    /// Throws `TraceError` when the command cannot be started or the bias cannot be measured;
    /// a target that crashes or times out is an outcome in the report, not an error.
    public func run(progress: (Progress) -> Void = { _ in }) throws(TraceError) -> TraceReport {
        guard let first = options.command.first, !first.isEmpty else { throw .cannotStart("", "no command") }
        guard let executable = CommandResolver.executable(for: first, environment: options.environment) else {
            throw .cannotStart(first, "not found in PATH")
        }
        let pinning = Self.pinning(cpu: options.cpu)
        // Read before pinning, so that the allowed CPUs are premain's own.
        let conditions = MachineProbe.conditions(
            pinning: pinning, runs: options.runs, warmup: options.warmup, cold: false,
            binaryPath: executable, buildID: TargetProbe.probe(executable).buildID, environmentOverrides: [],
            stdin: "inherited from premain")
        // With --cpu the tracer thread is pinned for the whole series, calibration included.
        let (report, idleLatency) = try IdleLatencyGuard.run(requested: options.holdIdleLatency) { () throws(TraceError) in
            try pinning.withMeasurerPinned { () throws(TraceError) in
                try trace(executable, conditions: conditions, progress: progress)
            }
        }
        var held = report
        for index in held.measurements.indices { held.measurements[index].conditions.cpuIdleLatency = idleLatency }
        return held
    }

    private func trace(_ executable: String, conditions: LaunchConditions,
                       progress: (Progress) -> Void) throws(TraceError) -> TraceReport {
        let bias: TraceBias
        if let given = options.biasMs {
            bias = TraceBias(pairMs: given, costPerCallMs: nil, source: "given", calibrationCalls: 0)
        } else if let target = options.calibration {
            bias = try BiasCalibrator.measure(target, cpu: options.cpu, environment: options.environment)
        } else {
            throw .noCalibrationTarget("no calibration program and no --bias-ms")
        }
        let untilSymbol: String? = if case .symbol(let name) = options.until { name } else { nil }
        let planner = ProbePlanner(functionQueries: options.functions, untilSymbol: untilSymbol,
                                   debugLocator: DebugFileLocator(extraDirectories: options.debugDirectories))
        var records: [TraceRunRecord] = []
        let total = options.warmup + options.runs
        for index in 0..<total {
            let session = TraceSession(
                configuration: .init(executable: executable, arguments: options.command, environment: options.environment,
                                     until: options.until, maxCalls: options.maxCalls, cpu: options.cpu,
                                     outputFD: options.outputFD, timeoutSeconds: options.timeoutSeconds),
                planner: planner)
            let record = try session.run()
            progress(Progress(run: index + 1, total: total, isWarmup: index < options.warmup,
                              outcome: record.outcome.description))
            if index >= options.warmup { records.append(record) }
        }
        var conditions = conditions
        conditions.measurerScheduling = !records.isEmpty && records.allSatisfy(\.tracerPriorityRaised)
            ? "nice \(TraceSession.tracerNice) (the target keeps its own priority)"
            : "nice 0 (nice \(TraceSession.tracerNice) needs CAP_SYS_NICE)"
        let measurement = TraceAggregator(biasMs: bias.pairMs, planner: planner).measurement(
            of: records, options: options, conditions: conditions)
        return TraceReport(bias: bias, measurements: [measurement])
    }

    /// With `cpu`, target and tracer share that CPU (every stop then wakes the tracer on the CPU
    /// the target just left, so a stop costs the same in every run); without it, neither is pinned.
    static func pinning(cpu: Int32?) -> CPUPinning {
        guard let cpu else {
            return CPUPinning(pinned: false, measurerCPU: nil, targetCPU: nil,
                              reason: "no --cpu given; tracer and target run where the scheduler puts them")
        }
        return CPUPinning(pinned: true, measurerCPU: Int(cpu), targetCPU: Int(cpu), reason: nil)
    }
}
