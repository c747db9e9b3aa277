import PremainAudit
import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

/// Traces two builds alternately for `compare --explain`: base and head in ABBA/BAAB blocks,
/// as the timed comparison launches them, so the machine's drift falls on both; each run times
/// every static initializer, Swift lazy global and default argument up to `window`. Stops after
/// `runs` of each or once `maxSeconds` are spent (the pair under way finishes). Never prints.
public struct PairedTracer {
    public struct Options: Sendable {
        /// Traced runs of each build at most (`--explain-runs`).
        public var runs: Int = 8
        /// Seconds of tracing at most (`--explain-time`); at least one pair is traced.
        public var maxSeconds: Double = 60
        /// Where each traced run stops.
        public var window: TraceWindowEnd = .firstOutput
        /// Each run is killed after this many seconds.
        public var timeoutSeconds: Double = 30
        /// The empty function traced to measure the bias; or `biasMs`.
        public var calibration: CalibrationTarget?
        public var biasMs: Double?
        public var holdIdleLatency = true
        /// Seed of the block orders.
        public var seed: UInt64 = 0x5EED

        public init() {}
    }

    public var options: Options
    /// The clock, in nanoseconds.
    public var clock: @Sendable () -> UInt64 = { MonotonicClock.nowNs() }

    public init(options: Options) {
        self.options = options
    }

    /// Traces `base` and `head` (resolved executable paths), each with `arguments` after argv[0].
    /// Throws `TraceError` when tracing is not supported here or the bias cannot be measured; a
    /// run that fails is kept with `succeeded == false`.
    public func trace(
        base: String, head: String, arguments: [String], environment: [String],
        progress: (LaunchProgress) -> Void = { _ in }
    ) throws(TraceError) -> TracedPair {
        guard Tracer.isSupported else { throw .unsupportedArchitecture }
        let started = clock()
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if devNull >= 0 { close(devNull) } }
        func traceOptions(_ path: String) -> TraceOptions {
            var traced = TraceOptions(command: [path] + arguments, environment: environment)
            traced.until = options.window
            traced.timeoutSeconds = options.timeoutSeconds
            traced.outputFD = devNull
            traced.stdinFD = devNull
            traced.holdIdleLatency = options.holdIdleLatency
            return traced
        }
        let baseOptions = traceOptions(base)
        let headOptions = traceOptions(head)
        let (pair, _) = try IdleLatencyGuard.run(requested: options.holdIdleLatency) {
            () throws(TraceError) -> TracedPair in
            let biasMs: Double
            if let given = options.biasMs {
                biasMs = given
            } else if let target = options.calibration {
                biasMs = try BiasCalibrator.measure(target, cpu: nil, environment: environment).pairMs
            } else {
                throw .noCalibrationTarget("no calibration program and no bias given")
            }
            let planners = (base: Self.planner(), head: Self.planner())
            let names = (
                base: Tracer.loaderNames(base, environment: environment),
                head: Tracer.loaderNames(head, environment: environment)
            )
            var baseRuns: [TracedRun] = []
            var headRuns: [TracedRun] = []
            var orders = BlockOrders(seed: options.seed)
            let total = 2 * max(1, options.runs)
            progress(LaunchProgress(completed: 0, total: total, phase: "tracing both builds"))
            // One warm-up each, not kept: the first traced run reads every object's DWARF.
            _ = try Tracer.traceOnce(base, options: baseOptions, planner: planners.base)
            _ = try Tracer.traceOnce(head, options: headOptions, planner: planners.head)
            while baseRuns.count < max(1, options.runs) {
                let order = orders.next() ? [true, false, false, true] : [false, true, true, false]
                for isBase in order where (isBase ? baseRuns.count : headRuns.count) < max(1, options.runs) {
                    var record = try Tracer.traceOnce(
                        isBase ? base : head, options: isBase ? baseOptions : headOptions,
                        planner: isBase ? planners.base : planners.head)
                    record.rename(isBase ? names.base : names.head)
                    let run = Self.run(
                        record, executable: isBase ? base : head, biasMs: biasMs,
                        planner: isBase ? planners.base : planners.head)
                    if isBase { baseRuns.append(run) } else { headRuns.append(run) }
                    progress(
                        LaunchProgress(
                            completed: baseRuns.count + headRuns.count, total: total,
                            phase: "tracing both builds"))
                }
                if Double(clock() &- started) / 1e9 >= options.maxSeconds { break }
            }
            let pairs = min(baseRuns.count, headRuns.count)
            var notes: [String] = []
            if pairs < max(1, options.runs) {
                notes.append(
                    "tracing stopped at the time limit (--explain-time) after \(pairs) run\(pairs == 1 ? "" : "s") of each build"
                )
            }
            return TracedPair(
                base: Array(baseRuns.prefix(pairs)), head: Array(headRuns.prefix(pairs)), biasMs: biasMs,
                seconds: Double(clock() &- started) / 1e9, notes: notes)
        }
        return pair
    }

    static func planner() -> ProbePlanner {
        ProbePlanner(functionQueries: [], untilSymbol: nil, debugLocator: DebugFileLocator())
    }

    /// One record reduced to per-function totals of the run, bias removed.
    static func run(_ record: TraceRunRecord, executable: String, biasMs: Double, planner: ProbePlanner) -> TracedRun {
        let biasNs = biasMs * 1e6
        var functions: [TracedRun.Function] = []
        for (key, entry) in record.functions where !entry.calls.isEmpty {
            let inclusive = entry.calls.filter { !$0.recursive }.reduce(0.0) { $0 + $1.correctedNs(biasNs: biasNs) }
            let exclusive = entry.calls.reduce(0.0) { $0 + $1.exclusiveNs(biasNs: biasNs) }
            let probe = entry.probe
            let source = planner.sourceLocation(of: probe)
            functions.append(
                TracedRun.Function(
                    object: key.object, symbol: key.symbol, demangled: probe.demangled, kind: probe.kind,
                    inlinedInto: probe.inlinedInto, source: source, inclusiveMs: inclusive / 1e6,
                    exclusiveMs: exclusive / 1e6,
                    calls: entry.hits))
        }
        functions.sort { ($0.object, $0.symbol, $0.source?.line ?? 0) < ($1.object, $1.symbol, $1.source?.line ?? 0) }
        return TracedRun(
            executable: executable, functions: functions, milestones: record.milestones,
            succeeded: record.outcome.succeeded)
    }
}
