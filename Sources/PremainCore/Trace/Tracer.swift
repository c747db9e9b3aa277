#if canImport(Glibc)
import Glibc
#endif

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
        guard let first = options.command.first else { throw .cannotStart("", "no command") }
        guard let executable = Self.resolve(first, environment: options.environment) else {
            throw .cannotStart(first, "not found in PATH")
        }
        let bias: TraceBias
        if let given = options.biasMs {
            bias = TraceBias(pairMs: given, costPerCallMs: nil, source: "given", calibrationCalls: 0)
        } else if let target = options.calibration {
            bias = try BiasCalibrator.measure(target, cpu: options.cpu, environment: options.environment)
        } else {
            throw .noCalibrationTarget("no calibration program and no --bias-ms")
        }
        var conditions = Self.conditions(cpu: options.cpu)
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
        conditions.tracerPriorityRaised = !records.isEmpty && records.allSatisfy(\.tracerPriorityRaised)
        let measurement = TraceAggregator(biasMs: bias.pairMs, planner: planner).measurement(
            of: records, options: options, conditions: conditions)
        return TraceReport(bias: bias, measurements: [measurement])
    }

    /// `name` itself when it has a slash, else the first executable `PATH` entry.
    static func resolve(_ name: String, environment: [String]) -> String? {
        if name.contains("/") { return name }
        let path = environment.first { $0.hasPrefix("PATH=") }.map { String($0.dropFirst(5)) }
            ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    static func conditions(cpu: Int32?) -> TraceConditions {
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let load = FileManagerLite.readText("/proc/loadavg")?.split(separator: " ").first.flatMap { Double($0) }
        return TraceConditions(pinnedCPU: cpu.map(Int.init), allowedCPUs: Int(ctraceAllowedCPUs()), loadAverage: load,
                               kernel: kernel, tracerPriorityRaised: false)
    }
}
