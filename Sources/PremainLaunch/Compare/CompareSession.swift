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
        let started = clock()
        var instructions: InstructionComparison?
        if let counter = options.instructionCounter {
            do {
                let before = try counter.count(
                    command: [base] + arguments, environment: environment,
                    timeoutSeconds: options.timeoutSeconds)
                let after = try counter.count(
                    command: [head] + arguments, environment: environment,
                    timeoutSeconds: options.timeoutSeconds)
                instructions = InstructionComparison(
                    base: before, head: after,
                    thresholdPercent: options.settings.instructionThresholdPercent,
                    baseExecutable: base, headExecutable: head)
            } catch {
                throw .instructionCountFailed(error)
            }
        }
        let settings = options.settings
        let builder = CompareBuilder(settings: settings)
        let baseTarget = TargetProbe.probe(base)
        let headTarget = TargetProbe.probe(head)
        // Both with LD_DEBUG (time to main, loader counts) only when both use glibc's loader;
        // else both without, so the observer effect is the same on both sides.
        let instrumented = baseTarget.glibcLoader && headTarget.glibcLoader
        let pinning = CPUPinning.plan(requested: options.pin)
        let warmup = max(0, options.warmup)
        let maxBlocks = max(1, (settings.maxRuns + 1) / 2)
        let minBlocks = min(maxBlocks, max(1, (settings.minRuns + 1) / 2))
        let total = 2 * warmup + 4 * maxBlocks
        var loads: [Double] = []
        if let load = loadAverage() { loads.append(load) }
        let throttledBefore = throttleEvents()

        func request(_ path: String) -> LaunchRequest {
            LaunchRequest(
                executablePath: path, arguments: [path] + arguments, environment: environment,
                instrumented: instrumented, targetCPU: pinning.targetCPU, timeoutSeconds: options.timeoutSeconds)
        }
        var done = 0
        var blocks: [PairedBlock] = []
        var stop = CompareReport.Runs.Stop.maxRuns
        var orders = BlockOrders(seed: settings.seed)
        var nextLook = minBlocks

        let ((_, scheduling), idleLatency) = try IdleLatencyGuard.run(requested: options.holdIdleLatency) {
            () throws(MeasureError) in
            try MeasurerScheduling.run(requested: options.realtimeMeasurer) { () throws(MeasureError) in
                try pinning.withMeasurerPinned { () throws(MeasureError) in
                    func launch(_ path: String) throws(MeasureError) -> LaunchSample {
                        let sample: LaunchSample
                        do {
                            sample = try launcher.launch(request(path))
                        } catch {
                            throw .launchFailed(command: path, error)
                        }
                        done += 1
                        progress(LaunchProgress(completed: done, total: total))
                        return sample
                    }
                    for _ in 0..<warmup {
                        _ = try launch(base)
                        _ = try launch(head)
                    }
                    while blocks.count < maxBlocks {
                        let baseFirst = orders.next()
                        var block = PairedBlock(baseFirst: baseFirst, base: [], head: [])
                        for isBase in baseFirst ? [true, false, false, true] : [false, true, true, false] {
                            let sample = try launch(isBase ? base : head)
                            if isBase { block.base.append(sample) } else { block.head.append(sample) }
                        }
                        blocks.append(block)
                        if block.base.contains(where: { !$0.outcome.succeeded })
                            || block.head.contains(where: { !$0.outcome.succeeded })
                        {
                            stop = .failed
                            break
                        }
                        // Looks at the intervals at geometrically spaced run counts (each a quarter more
                        // than the last), so the chance of stopping on a fluke grows slowly with the runs.
                        if blocks.count >= minBlocks && blocks.count >= nextLook {
                            nextLook = max(blocks.count + 1, (blocks.count * 5 + 3) / 4)
                            if builder.isSettled(builder.assess(blocks), instructions: instructions) {
                                stop = .decided
                                break
                            }
                        }
                        if Double(clock() &- started) / 1e9 >= settings.maxSeconds {
                            stop = .maxTime
                            break
                        }
                    }
                }
            }
        }
        if let load = loadAverage() { loads.append(load) }
        let throttled = throttledBefore.flatMap { before in throttleEvents().map { $0 - before } } ?? 0
        let perSide = blocks.count * 2
        var conditions = MachineProbe.conditions(
            pinning: pinning, runs: perSide, warmup: warmup, cold: false, binaryPath: base, buildID: baseTarget.buildID,
            environmentOverrides: instrumented
                ? [
                    LoaderDebugChannels.environmentEntry,
                    "LD_DEBUG_OUTPUT=<private folder>/ld-debug (a FIFO; glibc appends .PID)",
                ] : [])
        conditions.measurerScheduling = scheduling
        conditions.cpuIdleLatency = idleLatency
        let seconds = Double(clock() &- started) / 1e9
        var report = builder.report(
            blocks: blocks,
            base: .init(
                label: options.baseLabel ?? base, path: base, buildID: baseTarget.buildID,
                failures: Self.failures(blocks.flatMap(\.base))),
            head: .init(
                label: options.headLabel ?? head, path: head, buildID: headTarget.buildID,
                failures: Self.failures(blocks.flatMap(\.head))),
            arguments: arguments, warmup: warmup, seconds: seconds, stop: stop, conditions: conditions,
            loadAverages: loads,
            throttleEvents: throttled, instructions: instructions)
        explain(
            &report, blocks: blocks, base: base, head: head, arguments: arguments, environment: environment,
            options: options, progress: progress)
        if options.keepRawSamples {
            report.base.samples = blocks.flatMap(\.base)
            report.head.samples = blocks.flatMap(\.head)
        }
        return report
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
