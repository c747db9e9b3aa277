import PremainModel

/// The formats that continuous-benchmarking services read, one exporter each (hyperfine's
/// exporters): `--export-bmf`, `--export-benchmark-action`, `--export-openmetrics`.
public enum BenchmarkExportFormat: String, Sendable, CaseIterable {
    /// Bencher Metric Format: `{"<benchmark>": {"<measure>": {"value", "lower_value", "upper_value"}}}`.
    case bmf
    /// github-action-benchmark's `customSmallerIsBetter`: `[{name, unit, value, range, extra}]`.
    case benchmarkAction = "benchmark-action"
    /// OpenMetrics text exposition, as GitLab's metrics report (`metrics.txt`) reads it.
    case openMetrics = "openmetrics"

    /// The command-line option that writes it: `--export-bmf`.
    public var option: String { "--export-" + rawValue }

    /// Renders `metrics` in this format.
    public func render(_ metrics: [BenchmarkMetric]) throws -> String {
        try exporter.render(metrics)
    }

    var exporter: any BenchmarkExporter.Type {
        switch self {
        case .bmf: BMFExporter.self
        case .benchmarkAction: BenchmarkActionExporter.self
        case .openMetrics: OpenMetricsExporter.self
        }
    }
}

/// One format: a pure function of the metrics.
protocol BenchmarkExporter {
    static func render(_ metrics: [BenchmarkMetric]) throws -> String
}

/// One number of one benchmark, with its bounds: what every export writes. Names are stable
/// across runs: `benchmark` is the program's file name and its arguments (never a temporary
/// folder), `measure` the quantity (`main`, `firstOutput`, `main.change`, `count.symbolLookups`).
public struct BenchmarkMetric: Equatable, Sendable {
    public enum Unit: String, Sendable {
        case milliseconds = "ms"
        case count
        case instructions
    }

    /// `app add 1 2`: the program's file name and its arguments.
    public var benchmark: String
    /// `main`, `firstOutput`, `cpuTime`, `main.change`, `count.minorFaults`, `instructions.beforeMain`.
    public var measure: String
    public var unit: Unit
    public var value: Double
    /// The lower and upper bound: the runs' minimum and maximum for a measured value, the
    /// paired interval for a `.change`; `nil` for an exact count.
    public var lower: Double?
    public var upper: Double?
    /// A short human description of what the bounds are, for formats that show one.
    public var note: String

    public init(
        benchmark: String, measure: String, unit: Unit, value: Double, lower: Double? = nil, upper: Double? = nil,
        note: String
    ) {
        self.benchmark = benchmark
        self.measure = measure
        self.unit = unit
        self.value = value
        self.lower = lower
        self.upper = upper
        self.note = note
    }
}

/// The metrics of premain's reports, in report order. Returns `[]` for a report with no
/// measured launch (a `pr` without `--run`).
public enum BenchmarkMetrics {
    /// Each measured command's milestones (median, bounds min–max), CPU time, loader counts and
    /// instruction counts.
    public static func of(_ report: MeasureReport) -> [BenchmarkMetric] {
        report.measurements.flatMap { measurement -> [BenchmarkMetric] in
            // A row of the launch matrix is named by its launch and temperature ("format (cold)"),
            // so two launches of one program, and its cold and warm rows, are series apart.
            let name = measurement.launch == nil ? benchmarkName(measurement.command) : measurement.rowLabel
            var metrics = TimeQuantity.allCases.compactMap { quantity -> BenchmarkMetric? in
                measurement[quantity].map { time(name, quantity.metricName, $0) }
            }
            if let counts = measurement.loaderCounts?.startup {
                // `loader.` as exports have named them from the start (the history calls them
                // `count.`, as compare's exports do).
                metrics += CountQuantity.loader.compactMap { quantity in
                    counts[quantity].map {
                        BenchmarkMetric(
                            benchmark: name, measure: "loader." + quantity.rawValue, unit: .count, value: Double($0),
                            note: "exact")
                    }
                }
            }
            if let instructions = measurement.instructions { metrics += self.instructions(name, instructions) }
            return metrics
        }
    }

    /// The head's medians (bounds: the head's min–max), the paired change head − base of each
    /// time (bounds: its interval), the head's median counts, and head's instruction counts.
    public static func of(_ report: CompareReport) -> [BenchmarkMetric] {
        let name = report.launch == nil ? benchmarkName([report.head.path] + report.arguments) : report.rowLabel
        var metrics: [BenchmarkMetric] = []
        for time in report.times {
            metrics.append(self.time(name, time.quantity.metricName, time.head))
            if let change = time.difference {
                metrics.append(
                    BenchmarkMetric(
                        benchmark: name, measure: time.quantity.metricName + ".change", unit: .milliseconds,
                        value: change.medianMs, lower: change.lowMs, upper: change.highMs,
                        note: "head − base, paired; \(percent(change.level)) interval of \(change.pairs) pairs"))
            }
        }
        for count in report.counts {
            metrics.append(
                BenchmarkMetric(
                    benchmark: name, measure: count.quantity.metricName, unit: .count,
                    value: count.head.median, lower: Double(count.head.min), upper: Double(count.head.max),
                    note: "median over \(count.head.samples.count) runs; min–max"))
        }
        if let instructions = report.instructions { metrics += self.instructions(name, instructions.head) }
        return metrics
    }

    /// Every row of the launch matrix, each named by its row.
    public static func of(_ report: CompareMatrixReport) -> [BenchmarkMetric] {
        report.launches.flatMap(of)
    }

    /// A pull request's comparison, when it measured one; over the launch matrix, every row's.
    public static func of(_ report: PullRequestReport) -> [BenchmarkMetric] {
        report.launches.map { $0.flatMap(of) } ?? report.compare.map(of) ?? []
    }

    /// `app add 1 2`: the file name of `command[0]` and the arguments, so two checkouts or
    /// temporary folders name the same benchmark. Shown as every output of premain shows a
    /// name (`TextSafety.display`): a byte that is not UTF-8 is `\xff`, a control `\x0d`, in
    /// every export alike.
    public static func benchmarkName(_ command: [String]) -> String {
        guard let program = command.first else { return "" }
        // The last "/" scalar: a "/" followed by a combining mark is still a separator.
        let file =
            program.unicodeScalars.split(separator: "/").last.map { String(String.UnicodeScalarView($0)) } ?? program
        return TextSafety.display(([file] + command.dropFirst()).joined(separator: " "))
    }

    static func time(_ name: String, _ measure: String, _ summary: TimeSummary) -> BenchmarkMetric {
        BenchmarkMetric(
            benchmark: name, measure: measure, unit: .milliseconds, value: summary.medianMs,
            lower: summary.minMs, upper: summary.maxMs,
            note: "median of \(summary.samplesMs.count) runs; min–max")
    }

    static func instructions(_ name: String, _ counts: InstructionCounts) -> [BenchmarkMetric] {
        [
            ("instructions.beforeMain", counts.beforeMain), ("instructions.toFirstOutput", counts.toFirstOutput),
            ("instructions.total", Optional(counts.total)),
        ].compactMap { measure, value in
            value.map {
                BenchmarkMetric(
                    benchmark: name, measure: measure, unit: .instructions, value: Double($0),
                    note: "exact, under callgrind")
            }
        }
    }

    static func percent(_ level: Double) -> String {
        let value = level * 100
        return (value.rounded() == value ? String(Int(value)) : String(value)) + " %"
    }
}
