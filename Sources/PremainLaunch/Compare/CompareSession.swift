import PremainModel

/// Runs `premain compare`: both builds launched alternately in shuffled balanced blocks (every
/// two blocks hold one ABBA and one BAAB, in random order), after a warm-up of each, under the
/// same pinning and environment, until every gated quantity's paired interval decides or the
/// run or time budget is spent. The intervals are looked at once `minRuns` are done and then
/// each time the runs have grown by a quarter. The statistics are `CompareBuilder`'s.
public struct CompareSession: Sendable {
    public let launcher: any Launcher
    /// The clock, in nanoseconds; tests pass a scripted one.
    public var clock: @Sendable () -> UInt64 = { MonotonicClock.nowNs() }
    /// The load average, read at the start and the end; tests pass a fixed one.
    public var loadAverage: @Sendable () -> Double? = { MachineProbe.loadAverage() }
    /// Thermal throttling events so far, read at the start and the end; `nil` when unknown.
    public var throttleEvents: @Sendable () -> Int? = { MachineProbe.throttleEvents() }
    /// Traces both builds alternately to explain a change (`PairedTracer`); tests pass recorded
    /// traces.
    public var traceBoth:
        @Sendable (
            _ base: String, _ head: String, _ arguments: [String], _ environment: [String],
            _ options: PairedTracer.Options,
            _ progress: (LaunchProgress) -> Void
        ) throws(TraceError) -> TracedPair = {
            base, head, arguments, environment, options, progress throws(TraceError) in
            try PairedTracer(options: options).trace(
                base: base, head: head, arguments: arguments, environment: environment,
                progress: progress)
        }

    public init(launcher: any Launcher) {
        self.launcher = launcher
    }

    /// Compares the executables at `base` and `head` (paths, not looked up in PATH), each run
    /// with `arguments` after `argv[0]` and `environment`. Calls `progress` after every launch
    /// (its total is the most the budget allows). Throws `MeasureError` when an executable is
    /// missing or a launch cannot be set up; failing runs are part of the report.
    public func compare(
        base: String, head: String, arguments: [String], environment: [String], options: CompareOptions,
        progress: (LaunchProgress) -> Void = { _ in }
    ) throws(MeasureError) -> CompareReport {
        let row = CompareRowRequest(base: base, head: head, arguments: arguments, environment: environment)
        let reports = try compare(rows: [row], options: options, progress: progress)
        return reports[0]
    }

    /// Compares every row of the launch matrix: the rows' blocks interleaved with one another
    /// (one block of each undecided row in turn) as well as base with head, so drift falls on
    /// all rows alike and the runs go to the rows still undecided. `options.settings.maxSeconds`
    /// is one budget for all rows: a row it leaves undecided stops with `maxTime` (inconclusive).
    /// One report per row, in `rows`' order.
    public func compare(
        rows: [CompareRowRequest], options: CompareOptions, progress: (LaunchProgress) -> Void = { _ in }
    ) throws(MeasureError) -> [CompareReport] {
        let started = clock()
        let settings = options.settings
        var states: [CompareRowState] = []
        for row in rows {
            states.append(try CompareRowState(row: row, options: options, launcher: launcher))
        }
        let pinning = CPUPinning.plan(requested: options.pin)
        let warmup = max(0, options.warmup)
        let maxBlocks = max(1, (settings.maxRuns + 1) / 2)
        let total = states.count * (2 * warmup + 4 * maxBlocks)
        var loads: [Double] = []
        if let load = loadAverage() { loads.append(load) }
        let throttledBefore = throttleEvents()
        var done = 0

        let ((_, scheduling), idleLatency) = try IdleLatencyGuard.run(requested: options.holdIdleLatency) {
            () throws(MeasureError) in
            try MeasurerScheduling.run(requested: options.realtimeMeasurer) { () throws(MeasureError) in
                try pinning.withMeasurerPinned { () throws(MeasureError) in
                    let count = { () in
                        done += 1
                        progress(LaunchProgress(completed: done, total: total))
                    }
                    for index in states.indices {
                        try states[index].warmUp(warmup, launcher: launcher, cpu: pinning.targetCPU, counted: count)
                    }
                    while let next = states.indices.first(where: { states[$0].stop == nil }) {
                        for index in states.indices[next...] where states[index].stop == nil {
                            try states[index].launchBlock(
                                launcher: launcher, cpu: pinning.targetCPU, builder: CompareBuilder(settings: settings),
                                counted: count)
                        }
                        if Double(clock() &- started) / 1e9 >= settings.maxSeconds {
                            for index in states.indices where states[index].stop == nil {
                                states[index].stop = .maxTime
                            }
                        }
                    }
                }
            }
        }
        if let load = loadAverage() { loads.append(load) }
        let throttled = throttledBefore.flatMap { before in throttleEvents().map { $0 - before } } ?? 0
        let seconds = Double(clock() &- started) / 1e9
        var reports: [CompareReport] = []
        for state in states {
            var conditions = MachineProbe.conditions(
                pinning: pinning, runs: state.blocks.count * 2, warmup: warmup, cold: state.row.cold,
                binaryPath: state.row.base, buildID: state.baseTarget.buildID,
                environmentOverrides: state.instrumented
                    ? [
                        LoaderDebugChannels.environmentEntry,
                        "LD_DEBUG_OUTPUT=<private folder>/ld-debug (a FIFO; glibc appends .PID)",
                    ] : [],
                stdin: state.row.stdinPath ?? "/dev/null")
            conditions.measurerScheduling = scheduling
            conditions.cpuIdleLatency = idleLatency
            let builder = CompareBuilder(settings: settings)
            var report = builder.report(
                blocks: state.blocks,
                base: .init(
                    label: options.baseLabel ?? state.row.base, path: state.row.base,
                    buildID: state.baseTarget.buildID, failures: Self.failures(state.blocks.flatMap(\.base))),
                head: .init(
                    label: options.headLabel ?? state.row.head, path: state.row.head,
                    buildID: state.headTarget.buildID, failures: Self.failures(state.blocks.flatMap(\.head))),
                arguments: state.row.arguments, warmup: warmup, seconds: seconds, stop: state.stop ?? .maxRuns,
                conditions: conditions, loadAverages: loads, throttleEvents: throttled,
                instructions: state.instructions)
            report.launch = state.row.launch
            if state.row.cold {
                report.temperature = .cold
                report.coldResidency = MeasurementBuilder.residency(state.residency)
            } else if state.row.launch != nil {
                report.temperature = .warm
            }
            explain(
                &report, blocks: state.blocks, base: state.row.base, head: state.row.head,
                arguments: state.row.arguments, environment: state.row.environment, options: options,
                progress: progress)
            if options.keepRawSamples {
                report.base.samples = state.blocks.flatMap(\.base)
                report.head.samples = state.blocks.flatMap(\.head)
            }
            reports.append(report)
        }
        return reports
    }

    /// Adds the causes of the decided quantity's change (`CauseFinder`) when `options.explain`
    /// asks for them: on a regression or an improvement, or always with `.always` (then the
    /// first gated time). Traces both builds alternately unless the change is the loader's own
    /// (`loaderDone`); a trace that cannot run is a note, and the loader's figures still count.
    func explain(
        _ report: inout CompareReport, blocks: [PairedBlock], base: String, head: String, arguments: [String],
        environment: [String], options: CompareOptions, progress: (LaunchProgress) -> Void
    ) {
        guard options.explain != .never, report.runs.stop != .failed else { return }
        let decided =
            CauseFinder.decidedQuantity(report)
            ?? (options.explain == .always ? report.times.first { $0.gated && $0.difference != nil } : nil)
        guard let decided, let change = decided.difference?.medianMs else { return }
        var notes: [String] = []
        var traced: TracedPair?
        if decided.quantity != .milestone(.loaderDone) {
            var traceOptions = options.explainTrace
            traceOptions.window = decided.quantity.traceWindow
            traceOptions.seed = options.settings.seed
            if let timeout = options.timeoutSeconds { traceOptions.timeoutSeconds = timeout }
            traceOptions.holdIdleLatency = options.holdIdleLatency
            if !Tracer.isSupported {
                notes.append("functions not traced: trace is supported on x86-64 only")
            } else if traceOptions.calibration == nil && traceOptions.biasMs == nil {
                notes.append("functions not traced: no calibration program for the tracer's bias")
            } else {
                do {
                    let pair = try traceBoth(base, head, arguments, environment, traceOptions, progress)
                    traced = pair
                    let failed = pair.base.filter { !$0.succeeded }.count + pair.head.filter { !$0.succeeded }.count
                    if failed > 0 {
                        notes.append(
                            "\(failed) of \(pair.base.count + pair.head.count) traced runs did not reach \(traceOptions.window) and were left out of the pairs"
                        )
                    }
                } catch {
                    notes.append("functions not traced: \(error.description)")
                }
            }
        }
        let (causes, explanation) = CauseFinder(settings: options.settings).explain(
            quantity: decided.quantity, changeMs: change, blocks: blocks, traced: traced,
            instructions: report.instructions,
            base: base, head: head, notes: notes)
        report.causes = causes
        report.explanation = explanation
    }

    /// One line per distinct failure message: "2 of 4 runs: exited with status 1".
    static func failures(_ samples: [LaunchSample]) -> [String] {
        MeasurementBuilder.failures(samples.map(\.outcome)) { !$0.succeeded }
    }
}

/// One row of a comparison: both builds' executables and how each run of them is launched.
public struct CompareRowRequest: Sendable {
    public var base: String
    public var head: String
    /// After `argv[0]`.
    public var arguments: [String]
    public var environment: [String]
    /// Where each run ends and counts as good; `nil`: at exit.
    public var stop: StopCondition?
    /// Evict each build's program, loader and closure before each of its launches.
    public var cold = false
    public var stdinPath: String?
    public var workingDirectory: String?
    /// Seconds before a run is killed; `nil`: `CompareOptions.timeoutSeconds`.
    public var timeoutSeconds: Double?
    /// The declared launch this row compares; `nil` for the command line's.
    public var launch: String?

    public init(base: String, head: String, arguments: [String], environment: [String]) {
        self.base = base
        self.head = head
        self.arguments = arguments
        self.environment = environment
    }

    /// The row of a declared launch: its program found as `base` and `head`, its arguments, its
    /// environment over `environment`, its end, temperature, stdin, folder and timeout.
    public init(_ planned: PlannedRow, base: String, head: String, environment: [String]) {
        let launch = planned.row.launch
        self.init(
            base: base, head: head, arguments: Array(launch.run.dropFirst()),
            environment: launch.environment(over: environment))
        stop = planned.stop
        cold = planned.cold
        stdinPath = launch.stdin
        workingDirectory = launch.workingDirectory
        timeoutSeconds = launch.timeoutSeconds
        self.launch = launch.name
    }
}

/// A row being compared: its blocks so far and whether it has stopped (decided, out of runs,
/// a run failed, or out of the shared time).
struct CompareRowState {
    let row: CompareRowRequest
    let options: CompareOptions
    let baseTarget: TargetProbe
    let headTarget: TargetProbe
    /// Both with LD_DEBUG (time to main, loader counts) only when both use glibc's loader;
    /// else both without, so the observer effect is the same on both sides.
    let instrumented: Bool
    let instructions: InstructionComparison?
    /// Cold rows: what each build's eviction covers.
    let coldObjects: (base: [String], head: [String])
    var blocks: [PairedBlock] = []
    var residency: [[PageCacheEvictor.Residency]] = []
    var stop: CompareReport.Runs.Stop?
    var orders: BlockOrders
    var nextLook: Int
    let minBlocks: Int
    let maxBlocks: Int

    init(row: CompareRowRequest, options: CompareOptions, launcher: any Launcher) throws(MeasureError) {
        self.row = row
        self.options = options
        let settings = options.settings
        if let counter = options.instructionCounter {
            do {
                let before = try counter.count(
                    command: [row.base] + row.arguments, environment: row.environment,
                    timeoutSeconds: row.timeoutSeconds ?? options.timeoutSeconds)
                let after = try counter.count(
                    command: [row.head] + row.arguments, environment: row.environment,
                    timeoutSeconds: row.timeoutSeconds ?? options.timeoutSeconds)
                instructions = InstructionComparison(
                    base: before, head: after, thresholdPercent: settings.instructionThresholdPercent,
                    baseExecutable: row.base, headExecutable: row.head)
            } catch {
                throw .instructionCountFailed(error)
            }
        } else {
            instructions = nil
        }
        baseTarget = TargetProbe.probe(row.base)
        headTarget = TargetProbe.probe(row.head)
        instrumented = baseTarget.glibcLoader && headTarget.glibcLoader
        func objects(_ path: String, _ target: TargetProbe) -> [String] {
            guard row.cold else { return [] }
            return LoadedObjectDiscovery.objects(
                executable: path, interpreter: target.interpreter, glibcLoader: target.glibcLoader,
                environment: row.environment, launcher: launcher)
        }
        coldObjects = (objects(row.base, baseTarget), objects(row.head, headTarget))
        orders = BlockOrders(seed: settings.seed)
        maxBlocks = max(1, (settings.maxRuns + 1) / 2)
        minBlocks = min(maxBlocks, max(1, (settings.minRuns + 1) / 2))
        nextLook = minBlocks
    }

    func request(_ path: String, cpu: Int?) -> LaunchRequest {
        LaunchRequest(
            executablePath: path, arguments: [path] + row.arguments, environment: row.environment,
            instrumented: instrumented, targetCPU: cpu, timeoutSeconds: row.timeoutSeconds ?? options.timeoutSeconds,
            stop: row.stop, stdinPath: row.stdinPath, workingDirectory: row.workingDirectory)
    }

    /// One launch of a build, evicted first on a cold row.
    mutating func launch(
        base isBase: Bool, launcher: any Launcher, cpu: Int?, counted: () -> Void
    ) throws(MeasureError) -> LaunchSample {
        let path = isBase ? row.base : row.head
        let evicted = row.cold ? PageCacheEvictor.evict(isBase ? coldObjects.base : coldObjects.head) : []
        let sample: LaunchSample
        do {
            sample = try launcher.launch(request(path, cpu: cpu))
        } catch {
            throw .launchFailed(command: path, error)
        }
        if row.cold { residency.append(evicted) }
        counted()
        return sample
    }

    mutating func warmUp(_ runs: Int, launcher: any Launcher, cpu: Int?, counted: () -> Void) throws(MeasureError) {
        for _ in 0..<runs {
            _ = try launch(base: true, launcher: launcher, cpu: cpu, counted: counted)
            _ = try launch(base: false, launcher: launcher, cpu: cpu, counted: counted)
        }
        residency = []
    }

    /// One block, ABBA or BAAB; then `stop` is set when a run failed, the intervals decided
    /// or the runs are spent.
    mutating func launchBlock(
        launcher: any Launcher, cpu: Int?, builder: CompareBuilder, counted: () -> Void
    ) throws(MeasureError) {
        let baseFirst = orders.next()
        var block = PairedBlock(baseFirst: baseFirst, base: [], head: [])
        for isBase in baseFirst ? [true, false, false, true] : [false, true, true, false] {
            let sample = try launch(base: isBase, launcher: launcher, cpu: cpu, counted: counted)
            if isBase { block.base.append(sample) } else { block.head.append(sample) }
        }
        blocks.append(block)
        if block.base.contains(where: { !$0.outcome.succeeded })
            || block.head.contains(where: { !$0.outcome.succeeded })
        {
            stop = .failed
            return
        }
        // Looks at the intervals at geometrically spaced run counts (each a quarter more than
        // the last), so the chance of stopping on a fluke grows slowly with the runs.
        if blocks.count >= minBlocks && blocks.count >= nextLook {
            nextLook = max(blocks.count + 1, (blocks.count * 5 + 3) / 4)
            if builder.isSettled(builder.assess(blocks), instructions: instructions) {
                stop = .decided
                return
            }
        }
        if blocks.count >= maxBlocks { stop = .maxRuns }
    }
}

/// Block orders that are shuffled and balanced: each consecutive two blocks are one ABBA and
/// one BAAB, which of the two comes first drawn from a seeded generator.
struct BlockOrders {
    private var generator: SeededGenerator
    private var pending: Bool?

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    /// `true` for ABBA (base first).
    mutating func next() -> Bool {
        if let second = pending {
            pending = nil
            return second
        }
        let first = Bool.random(using: &generator)
        pending = !first
        return first
    }
}

/// How `CompareSession` runs.
public struct CompareOptions: Sendable {
    public var settings: CompareSettings
    /// Uncounted launches of each build first.
    public var warmup: Int = 1
    /// Seconds before a run is killed; `nil` for no limit.
    public var timeoutSeconds: Double?
    public var pin: Bool = true
    public var realtimeMeasurer: Bool = true
    public var holdIdleLatency: Bool = true
    /// Keep every counted launch of each side in the report (`CompareReport.Side.samples`), for
    /// `--export-trace` and the HTML report.
    public var keepRawSamples = false
    /// Counts each build's instructions under callgrind before the timed runs; `nil`: no counts.
    public var instructionCounter: InstructionCounter?
    /// Names for the two sides in the report; the paths when `nil`.
    public var baseLabel: String?
    public var headLabel: String?
    /// When to look for the causes of a change (`--explain`, `--no-explain`).
    public var explain = ExplainMode.whenChanged
    /// How both builds are traced for per-function causes (`--explain-runs`, `--explain-time`);
    /// the CLI sets the calibration program.
    public var explainTrace = PairedTracer.Options()

    public init(settings: CompareSettings = .init(), warmup: Int = 1, timeoutSeconds: Double? = nil) {
        self.settings = settings
        self.warmup = warmup
        self.timeoutSeconds = timeoutSeconds
    }
}

/// When `compare` looks for the causes of a change.
public enum ExplainMode: String, Sendable, CaseIterable {
    /// Never (`--no-explain`).
    case never
    /// When the verdict is a regression or an improvement (the default).
    case whenChanged
    /// Always (`--explain`): the first gated time's difference, whatever the verdict.
    case always
}
