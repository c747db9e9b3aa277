/// The result of `premain compare BASE HEAD`: both builds launched alternately in shuffled
/// balanced blocks (ABBA, BAAB) under the same conditions until the interval of the paired
/// difference decided, or the run budget ran out. Codable; JSON `schemaVersion` 1.
public struct CompareReport: Codable, Equatable, Sendable, KindedReport {
    public static let kind = ReportKind.compare
    public var schemaVersion: Int = 1
    public var kind = ReportKindField<CompareReport>()
    /// The declared launch (premain.json `launches`) this comparison is the row of; `nil` for
    /// the command line's unnamed launch.
    public var launch: String?
    /// The row's temperature; `nil` for the command line's launch (warm).
    public var temperature: LaunchTemperature?
    /// Cold rows: what stayed in the page cache after each eviction, both builds' files.
    public var coldResidency: [ResidencySummary]?
    public var tool: ToolInfo
    public var verdict: CompareVerdict
    /// Why, most important first; never empty.
    public var reasons: [String]
    /// Everything that makes the figures less trustworthy: wide spread, outliers, drift, load,
    /// failed runs, a wall-time change no other signal backs.
    public var warnings: [MeasurementWarning]
    public var base: Side
    public var head: Side
    /// The arguments both executables got (after `argv[0]`).
    public var arguments: [String]
    public var runs: Runs
    /// Wall-time milestones and CPU time, gated ones first.
    public var times: [TimeComparison]
    /// Counts from the loader and from rusage.
    public var counts: [CountComparison]
    /// Exact instruction counts under callgrind (`--instructions`); `nil` when not asked for.
    public var instructions: InstructionComparison?
    public var settings: CompareSettings
    /// The machine and the launch set-up (the base side's path and build ID).
    public var conditions: LaunchConditions
    /// What made the decided quantity change, largest share first: functions traced in both
    /// builds and objects timed by the loader, paired by identity. `nil` when nothing was
    /// explained (no change, inconclusive, or `--no-explain`); `[]` when it was tried and
    /// nothing moved enough to be named.
    public var causes: [StartupCause]?
    /// How much of the change `causes` explain and how they were found; `nil` with `causes`.
    public var explanation: StartupExplanation?

    public init(
        tool: ToolInfo = .current, verdict: CompareVerdict, reasons: [String], warnings: [MeasurementWarning],
        base: Side, head: Side, arguments: [String], runs: Runs, times: [TimeComparison],
        counts: [CountComparison], instructions: InstructionComparison? = nil, settings: CompareSettings,
        conditions: LaunchConditions
    ) {
        self.tool = tool
        self.verdict = verdict
        self.reasons = reasons
        self.warnings = warnings
        self.base = base
        self.head = head
        self.arguments = arguments
        self.runs = runs
        self.times = times
        self.counts = counts
        self.instructions = instructions
        self.settings = settings
        self.conditions = conditions
    }

    /// An object's role as people read it: the program's file name (head's) for
    /// `<executable>`, else the role itself (a library's file name).
    public func objectName(_ role: String) -> String {
        guard role == StartupCause.executableRole else { return role }
        let name = ObjectName.fileName(head.path)
        return name.isEmpty ? role : name
    }

    /// One of the two builds.
    public struct Side: Codable, Equatable, Sendable {
        /// As given on the command line.
        public var label: String
        /// The executable launched.
        public var path: String
        public var buildID: String?
        /// One line per distinct failure of its runs; `[]` when every run succeeded.
        public var failures: [String]
        /// Every counted launch of this side in launch order, when kept (`--export-trace`,
        /// `--format html`); `nil` otherwise.
        public var samples: [LaunchSample]? = nil

        public init(label: String, path: String, buildID: String? = nil, failures: [String] = []) {
            self.label = label
            self.path = path
            self.buildID = buildID
            self.failures = failures
        }
    }

    /// What the comparison spent.
    public struct Runs: Codable, Equatable, Sendable {
        /// Why launching stopped.
        public enum Stop: String, Codable, Sendable {
            /// Every gated quantity's interval decided.
            case decided
            /// `--max-runs` reached.
            case maxRuns
            /// `--max-time` reached.
            case maxTime
            /// A run of either build failed.
            case failed
        }

        /// Counted launches of each build.
        public var perSide: Int
        /// Uncounted launches of each build first.
        public var warmup: Int
        /// Each block's order, `ABBA` (base first) or `BAAB`.
        public var blocks: [String]
        /// Wall time of the whole comparison, launches and statistics, in seconds.
        public var seconds: Double
        public var stop: Stop

        public init(perSide: Int, warmup: Int, blocks: [String], seconds: Double, stop: Stop) {
            self.perSide = perSide
            self.warmup = warmup
            self.blocks = blocks
            self.seconds = seconds
            self.stop = stop
        }
    }

    /// The exit-code-worthy outcome, for people: "regression", "no change", …
    public var verdictTitle: String { verdict.title }

    /// The verdict with a failed run told apart: `runFailed` when a run of either build failed
    /// (the verdict says `inconclusive` then), else the verdict. Its `exitCode` is compare's.
    public var outcome: VerdictStatus {
        runs.stop == .failed ? .runFailed : verdict
    }

    /// The time the verdict rests on: among the gated times whose result is the verdict's
    /// direction, the one that moved most (with exact instruction counts deciding alone, the
    /// gated time that moved most); for no change and inconclusive the first gated time.
    /// `nil` when no gated time has a difference.
    public var decidingTime: TimeComparison? {
        let gated = times.filter { $0.gated && $0.difference != nil }
        let direction: QuantityResult
        switch verdict {
        case .regression: direction = .regression
        case .improvement: direction = .improvement
        default: return gated.first
        }
        let moved = gated.filter { $0.result == direction }
        return (moved.isEmpty ? gated : moved).max {
            abs($0.difference?.medianMs ?? 0) < abs($1.difference?.medianMs ?? 0)
        }
    }
}

/// What `compare` concluded: `regression`, `improvement`, `noChange` or `inconclusive`
/// (`VerdictStatus.written(by: .compare)`).
public typealias CompareVerdict = VerdictStatus

/// Where one quantity's interval fell against its threshold.
public enum QuantityResult: String, Codable, Sendable {
    /// Wholly above +threshold (more time, more counts).
    case regression
    /// Wholly below −threshold.
    case improvement
    /// Wholly inside ±threshold.
    case noChange
    /// The interval straddles a threshold, or there were too few blocks for one.
    case undecided
}

/// A time measured on both builds in every block.
public struct TimeComparison: Codable, Equatable, Sendable {
    /// A milestone or CPU time (`TimeQuantity`).
    public typealias Quantity = TimeQuantity

    public var quantity: Quantity
    /// True when the verdict rests on it (main and first output; exit when neither exists).
    public var gated: Bool
    public var base: TimeSummary
    public var head: TimeSummary
    /// The paired difference head − base; `nil` with too few blocks for an interval.
    public var difference: TimeDifference?
    /// max(`thresholdMs`, `thresholdPercent` of the base median).
    public var thresholdMs: Double
    public var result: QuantityResult
    /// `true` when the result is no change but the interval excludes zero: a real difference
    /// too small to count ("+0.96 ms, detected, under the ±1.15 ms threshold"); `nil` otherwise.
    public var detectedUnderThreshold: Bool?

    public init(
        quantity: Quantity, gated: Bool, base: TimeSummary, head: TimeSummary, difference: TimeDifference?,
        thresholdMs: Double, result: QuantityResult
    ) {
        self.quantity = quantity
        self.gated = gated
        self.base = base
        self.head = head
        self.difference = difference
        self.thresholdMs = thresholdMs
        self.result = result
        if result == .noChange, let difference, difference.lowMs > 0 || difference.highMs < 0 {
            detectedUnderThreshold = true
        }
    }

    enum CodingKeys: String, CodingKey {
        case quantity, gated, base, head, difference, thresholdMs, result, detectedUnderThreshold
    }

    /// Writes `base` and `head` as `{medianMs, p90Ms, minMs, maxMs, madMs, samplesMs}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(gated, forKey: .gated)
        for (key, summary) in [(CodingKeys.base, base), (.head, head)] {
            var series = container.nestedContainer(keyedBy: TimeSummary.CodingKeys.self, forKey: key)
            try series.encode(summary.medianMs, forKey: .medianMs)
            try series.encode(summary.p90Ms, forKey: .p90Ms)
            try series.encode(summary.minMs, forKey: .minMs)
            try series.encode(summary.maxMs, forKey: .maxMs)
            try series.encode(summary.madMs, forKey: .madMs)
            try series.encode(summary.samplesMs, forKey: .samplesMs)
        }
        try container.encodeIfPresent(difference, forKey: .difference)
        try container.encode(thresholdMs, forKey: .thresholdMs)
        try container.encode(result, forKey: .result)
        try container.encodeIfPresent(detectedUnderThreshold, forKey: .detectedUnderThreshold)
    }
}

/// A count measured on both builds in every block.
public struct CountComparison: Codable, Equatable, Sendable {
    /// A loader or rusage count (`CountQuantity`).
    public typealias Quantity = CountQuantity

    public var quantity: Quantity
    public var base: CountSummary
    public var head: CountSummary
    /// The paired difference head − base; `nil` with too few blocks for an interval.
    public var difference: CountDifference?
    /// max(1, `thresholdPercent` of the base median).
    public var threshold: Double
    public var result: QuantityResult

    public init(
        quantity: Quantity, base: CountSummary, head: CountSummary, difference: CountDifference?,
        threshold: Double, result: QuantityResult
    ) {
        self.quantity = quantity
        self.base = base
        self.head = head
        self.difference = difference
        self.threshold = threshold
        self.result = result
    }
}

/// A count over the runs of one build.
public struct CountSummary: Codable, Equatable, Sendable {
    public var median: Double
    public var min: Int
    public var max: Int
    public var samples: [Int]

    /// `nil` when there is no sample.
    public init?(samples: [Int]) {
        guard let low = samples.min(), let high = samples.max(),
            let median = SampleStatistics.median(samples.map(Double.init))
        else { return nil }
        self.median = median
        self.min = low
        self.max = high
        self.samples = samples
    }
}

/// When `compare` calls a difference real and how long it may try: premain.json's `compare`
/// section, with the command line's options applied.
public struct CompareSettings: Codable, Equatable, Sendable {
    /// A difference must exceed this many ms …
    public var thresholdMs: Double
    /// … or this percentage of the base median, whichever is larger.
    public var thresholdPercent: Double
    /// Exact instruction counts must change by more than this percentage.
    public var instructionThresholdPercent: Double
    /// Confidence level of the intervals.
    public var confidence: Double
    /// Counted launches of each build before a verdict may be drawn (rounded up to whole blocks).
    public var minRuns: Int
    /// Counted launches of each build at most.
    public var maxRuns: Int
    /// Seconds of launching at most (the blocks under way finish).
    public var maxSeconds: Double
    /// Seed of the block orders, so a comparison can be repeated.
    public var seed: UInt64

    /// The values each setting may take, declared once: the command line's options and
    /// premain.json's `compare` section both check against them.
    public enum Bounds {
        public static let thresholdMs: ClosedRange<Double> = 0...1_000_000
        public static let thresholdPercent: ClosedRange<Double> = 0...1000
        public static let instructionThresholdPercent: ClosedRange<Double> = 0...1000
        public static let confidence: ClosedRange<Double> = 0.5...0.9999
        /// Two runs of each build at least: one paired difference needs a pair.
        public static let minRuns: ClosedRange<Int> = 2...100_000
        public static let maxRuns: ClosedRange<Int> = 2...100_000
        /// One day at most.
        public static let maxSeconds: ClosedRange<Double> = 0...86_400
    }

    public init(
        thresholdMs: Double = 0.5, thresholdPercent: Double = 5, instructionThresholdPercent: Double = 2,
        confidence: Double = 0.95, minRuns: Int = 16, maxRuns: Int = 200, maxSeconds: Double = 120,
        seed: UInt64 = 0x5EED
    ) {
        self.thresholdMs = thresholdMs
        self.thresholdPercent = thresholdPercent
        self.instructionThresholdPercent = instructionThresholdPercent
        self.confidence = confidence
        self.minRuns = minRuns
        self.maxRuns = maxRuns
        self.maxSeconds = maxSeconds
        self.seed = seed
    }

    /// The threshold of a time whose base median is `baseMs`.
    public func thresholdMs(forBase baseMs: Double) -> Double {
        max(thresholdMs, abs(baseMs) * thresholdPercent / 100)
    }
}

/// Exact instruction counts of both builds under callgrind (`compare --instructions`): they do
/// not drift with the machine's load, so a change past the threshold is a regression even when
/// wall time is too noisy to say.
public struct InstructionComparison: Codable, Equatable, Sendable {
    public var base: InstructionCounts
    public var head: InstructionCounts
    /// head − base of each count; `nil` where a side lacks it.
    public var difference: InstructionDifference
    /// A count must change by more than this percentage of the base count.
    public var thresholdPercent: Double
    /// Over before main and to first output (the total when a side has neither): regression
    /// when one grew past the threshold, improvement when one shrank past it and none grew,
    /// else no change.
    public var result: QuantityResult
    /// Initializer functions whose counts changed, largest change first (at most 10).
    public var functions: [FunctionInstructionDelta]

    /// `baseExecutable` and `headExecutable`, the paths launched, tell each build's own
    /// functions (role `<executable>`) from a library's; without them objects pair by file name.
    public init(
        base: InstructionCounts, head: InstructionCounts, thresholdPercent: Double,
        baseExecutable: String? = nil, headExecutable: String? = nil
    ) {
        self.base = base
        self.head = head
        self.thresholdPercent = thresholdPercent
        func delta(_ pick: (InstructionCounts) -> UInt64?) -> Int64? {
            guard let before = pick(base), let after = pick(head) else { return nil }
            return Int64(clamping: after) &- Int64(clamping: before)
        }
        difference = InstructionDifference(
            beforeMain: delta(\.beforeMain), toFirstOutput: delta(\.toFirstOutput),
            total: delta(\.total) ?? 0)
        var gated: [(Int64, UInt64)] = []
        for pick in [\InstructionCounts.beforeMain, \.toFirstOutput] {
            if let before = base[keyPath: pick], let change = delta({ $0[keyPath: pick] }) {
                gated.append((change, before))
            }
        }
        if gated.isEmpty { gated = [(difference.total, base.total)] }
        func past(_ entry: (Int64, UInt64)) -> Int {
            let limit = Double(entry.1) * thresholdPercent / 100
            return Double(entry.0) > limit ? 1 : Double(entry.0) < -limit ? -1 : 0
        }
        let moves = gated.map(past)
        result = moves.contains(1) ? .regression : moves.contains(-1) ? .improvement : .noChange
        // Paired by identity: the object's role (the executable launched, or a library's file
        // name) and the symbol, never by the folder a build is in.
        func role(_ object: String, _ executable: String?) -> String {
            executable.map { StartupCause.role(of: object, executable: $0) } ?? ObjectName.fileName(object)
        }
        var rows: [String: FunctionInstructionDelta] = [:]
        var order: [String] = []
        func key(_ function: FunctionInstructions, _ executable: String?) -> String {
            role(function.object, executable) + "\u{0}" + function.symbol
        }
        for function in base.functions {
            let id = key(function, baseExecutable)
            if rows[id] == nil { order.append(id) }
            var row =
                rows[id]
                ?? FunctionInstructionDelta(
                    object: role(function.object, baseExecutable),
                    name: SwiftName.display(symbol: function.symbol, demangled: function.demangled),
                    base: nil, head: nil)
            row.symbol = function.symbol
            row.base = (row.base ?? 0) &+ function.instructions
            rows[id] = row
        }
        for function in head.functions {
            let id = key(function, headExecutable)
            if rows[id] == nil { order.append(id) }
            var row =
                rows[id]
                ?? FunctionInstructionDelta(
                    object: role(function.object, headExecutable),
                    name: SwiftName.display(symbol: function.symbol, demangled: function.demangled),
                    base: nil, head: nil)
            row.symbol = function.symbol
            row.head = (row.head ?? 0) &+ function.instructions
            rows[id] = row
        }
        functions = Array(
            order.compactMap { rows[$0] }.filter { $0.change != 0 }
                .sorted { (abs($0.change), $0.name) > (abs($1.change), $1.name) }.prefix(10))
    }

    /// The three counts in table order: before main, to first output, in all.
    public var rows: [(title: String, base: UInt64?, head: UInt64?, change: Int64?)] {
        [
            ("before main", base.beforeMain, head.beforeMain, difference.beforeMain),
            ("to first output", base.toFirstOutput, head.toFirstOutput, difference.toFirstOutput),
            ("in all", base.total, head.total, difference.total),
        ]
    }

    /// "before main", "to first output" or "in all": the count the verdict line quotes.
    public var headline: (title: String, base: UInt64, change: Int64) {
        if let before = base.beforeMain, let change = difference.beforeMain { return ("before main", before, change) }
        if let before = base.toFirstOutput, let change = difference.toFirstOutput {
            return ("to first output", before, change)
        }
        return ("in all", base.total, difference.total)
    }
}

/// head − base of each instruction count.
public struct InstructionDifference: Codable, Equatable, Sendable {
    public var beforeMain: Int64?
    public var toFirstOutput: Int64?
    public var total: Int64

    public init(beforeMain: Int64?, toFirstOutput: Int64?, total: Int64) {
        self.beforeMain = beforeMain
        self.toFirstOutput = toFirstOutput
        self.total = total
    }
}

/// One initializer function's instructions on both builds; `nil` where a build lacks it.
public struct FunctionInstructionDelta: Codable, Equatable, Sendable {
    /// The object's role: `<executable>` for the program launched, else its file name.
    public var object: String
    /// Demangled when possible.
    public var name: String
    /// The symbol as callgrind named it; `nil` in reports written before it was kept.
    public var symbol: String?
    public var base: UInt64?
    public var head: UInt64?

    public init(object: String, name: String, base: UInt64?, head: UInt64?) {
        self.object = object
        self.name = name
        self.base = base
        self.head = head
    }

    /// head − base, a missing side counted as 0.
    public var change: Int64 { Int64(clamping: head ?? 0) &- Int64(clamping: base ?? 0) }
}
