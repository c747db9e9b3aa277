import FoundationEssentials
import PremainModel

/// One number a report gives for the history: a time (median over its runs) or a count.
public struct HistoryMetric: Equatable, Sendable {
    public var name: String
    /// `ms` or `count`.
    public var unit: String
    public var value: Double

    public init(name: String, unit: String, value: Double) {
        self.name = name
        self.unit = unit
        self.value = value
    }

    /// The median of a time, under its one name.
    public init(_ quantity: TimeQuantity, _ milliseconds: Double) {
        self.init(name: quantity.metricName, unit: "ms", value: milliseconds)
    }

    /// A count, under its one name whichever report gave it.
    public init(_ quantity: CountQuantity, _ count: Double) {
        self.init(name: quantity.metricName, unit: "count", value: count)
    }
}

/// The metrics a premain report gives. Reports are decoded as model values (`JSONDecoder`), as
/// the kind their header says (`ReportHeader`).
public enum ReportMetrics {
    /// The kind and the metrics of `json`. Throws `.unreadableReport` naming what is wrong when
    /// it is not JSON, not a premain report, a kind that gives no metrics, or a report that
    /// does not decode. `commit` is the commit the report names itself (a `pr` report's head),
    /// else `nil`.
    public static func read(_ json: String) throws(HistoryError) -> (
        kind: ReportKind, metrics: [HistoryMetric], commit: String?
    ) {
        let data = Data(json.utf8)
        let header: ReportHeader
        do {
            header = try JSONDecoder().decode(ReportHeader.self, from: data)
        } catch {
            throw HistoryError(.unreadableReport, "not a JSON object")
        }
        guard header.schemaVersion != nil || header.declaredKind != nil, let kind = header.kind else {
            throw HistoryError(
                .unreadableReport,
                header.declaredKind.map { "a report of kind '\($0)', which this premain does not know" }
                    ?? "not a premain report (no schemaVersion with binaries, measurements, times, objects, diff or findings)"
            )
        }
        do {
            let commit = kind == .pr ? try JSONDecoder().decode(PullRequestReport.self, from: data).commits?.head : nil
            guard let metrics = try metrics(kind, data) else {
                throw HistoryError(.unreadableReport, "\(kind.article) report, which gives no metrics to keep")
            }
            return (kind, metrics, commit)
        } catch let error as HistoryError {
            throw error
        } catch let error as DecodingError {
            throw HistoryError(.unreadableReport, "a \(kind.rawValue) report that does not decode (\(describe(error)))")
        } catch {
            throw HistoryError(.unreadableReport, "a \(kind.rawValue) report that does not decode")
        }
    }

    /// The metrics of a report of `kind`; `nil` for a kind that gives none (a history, a cost model).
    static func metrics(_ kind: ReportKind, _ data: Data) throws -> [HistoryMetric]? {
        let decoder = JSONDecoder()
        switch kind {
        case .history, .loaderCostModel, .fieldCompare: return nil
        case .compareMatrix:
            return try decoder.decode(CompareMatrixReport.self, from: data).launches.flatMap(row)
        case .field: return field(try decoder.decode(FieldReport.self, from: data))
        case .measure: return measure(try decoder.decode(MeasureReport.self, from: data))
        case .trace: return trace(try decoder.decode(TraceReport.self, from: data))
        case .compare: return compare(try decoder.decode(CompareReport.self, from: data))
        case .diff: return diff(try decoder.decode(DiffReport.self, from: data))
        case .audit: return audit(try decoder.decode(AuditReport.self, from: data))
        case .check: return check(try decoder.decode(CheckReport.self, from: data))
        case .pr:
            let report = try decoder.decode(PullRequestReport.self, from: data)
            let measured = report.launches.map { $0.flatMap(row) } ?? report.compare.map(compare) ?? []
            return measured + diff(report.diff)
        }
    }

    /// `launch.format.cold.`: the prefix of a launch matrix row's series, one per launch ×
    /// temperature × quantity (issue 35), so `history show` charts the rows side by side.
    public static func rowPrefix(launch: String, temperature: LaunchTemperature) -> String {
        "launch.\(launch).\(temperature.rawValue)."
    }

    /// A compared row of the launch matrix: `compare`'s metrics under its row's prefix; a
    /// report of one command (no launch) as `compare`.
    static func row(_ report: CompareReport) -> [HistoryMetric] {
        guard let launch = report.launch else { return compare(report) }
        let prefix = rowPrefix(launch: launch, temperature: report.temperature ?? .warm)
        return compare(report).map { HistoryMetric(name: prefix + $0.name, unit: $0.unit, value: $0.value) }
    }

    /// The medians of the times (`main`, `firstOutput`, …, `cpuTime`) and the loader's counts
    /// (`count.symbolLookups`, …) of the first measured command; over the launch matrix, of
    /// every row, each under its row's prefix (`launch.format.cold.main`).
    public static func measure(_ report: MeasureReport) -> [HistoryMetric] {
        guard let first = report.measurements.first else { return [] }
        guard first.launch != nil else { return measurement(first) }
        return report.measurements.flatMap { row -> [HistoryMetric] in
            guard let launch = row.launch else { return [] }
            let prefix = rowPrefix(launch: launch, temperature: LaunchTemperature(cold: row.cold))
            return measurement(row).map { HistoryMetric(name: prefix + $0.name, unit: $0.unit, value: $0.value) }
        }
    }

    static func measurement(_ measurement: LaunchMeasurement) -> [HistoryMetric] {
        var metrics = TimeQuantity.allCases.compactMap { quantity in
            measurement[quantity].map { HistoryMetric(quantity, $0.medianMs) }
        }
        if let counts = measurement.loaderCounts?.startup {
            metrics += CountQuantity.loader.compactMap { quantity in
                counts[quantity].map { HistoryMetric(quantity, Double($0)) }
            }
        }
        return metrics
    }

    /// Milestones of the traced runs (`trace.main`, …) and the inclusive median of the 20
    /// slowest functions (`trace.function.<name>`).
    public static func trace(_ report: TraceReport) -> [HistoryMetric] {
        guard let measurement = report.measurements.first else { return [] }
        var metrics = measurement.milestones.map {
            HistoryMetric(name: "trace.\($0.key)", unit: "ms", value: $0.value.medianMs)
        }
        var seen = Set<String>()
        for function in measurement.functions.sorted(by: { $0.inclusive.medianMs > $1.inclusive.medianMs }).prefix(20) {
            let name = "trace.function.\(function.demangled ?? function.symbol)"
            guard seen.insert(name).inserted else { continue }
            metrics.append(HistoryMetric(name: name, unit: "ms", value: function.inclusive.medianMs))
        }
        return metrics
    }

    /// The head's medians and median counts under the same names as `measure` (a pull
    /// request's head is the commit recorded).
    public static func compare(_ report: CompareReport) -> [HistoryMetric] {
        report.times.map { HistoryMetric($0.quantity, $0.head.medianMs) }
            + report.counts.map { HistoryMetric($0.quantity, $0.head.median) }
    }

    /// The head's closure counts (`static.<name>`) and measured milestone medians.
    public static func diff(_ report: DiffReport) -> [HistoryMetric] {
        report.closures.compactMap { delta in
            delta.head.map { HistoryMetric(name: "static.\(delta.name)", unit: "count", value: Double($0)) }
        }
            + report.measured.filter { $0.scope == .milestone }.compactMap { delta in
                delta.head.map { HistoryMetric(name: delta.subject, unit: "ms", value: $0.medianMs) }
            }
    }

    /// Files, relocations, initializers and exported symbols over the audited files.
    public static func audit(_ report: AuditReport) -> [HistoryMetric] {
        var metrics = [HistoryMetric(name: "audit.files", unit: "count", value: Double(report.binaries.count))]
        if let summary = report.summary {
            metrics += [
                HistoryMetric(name: "audit.relocations", unit: "count", value: Double(summary.relocations)),
                HistoryMetric(name: "audit.initializers", unit: "count", value: Double(summary.initializers)),
                HistoryMetric(name: "audit.exported", unit: "count", value: Double(summary.exported)),
            ]
        }
        return metrics
    }

    /// Field percentiles per row, beside the lab's medians: `field.<executable>[<scenario>].<temperature>.main.p50`
    /// and `.p90` (time to main), `.loader.p50` and `.p90` (loader start to main). Of several
    /// versions of one executable × scenario × temperature, the one with the most launches.
    public static func field(_ report: FieldReport) -> [HistoryMetric] {
        var metrics: [HistoryMetric] = []
        var seen = Set<String>()
        for row in report.rows.sorted(by: { $0.samples > $1.samples }) {
            let stem = "field.\(row.executable)\(row.scenario.map { "[\($0)]" } ?? "").\(row.temperature.rawValue)"
            guard seen.insert(stem).inserted else { continue }
            for (part, distribution) in [("main", row.timeToMain), ("loader", row.loaderToMain)] {
                guard let distribution else { continue }
                for percentile in [FieldPercentile.p50, .p90] {
                    guard let quantile = distribution[percentile] else { continue }
                    metrics.append(
                        HistoryMetric(
                            name: "\(stem).\(part).\(percentile.rawValue)", unit: "ms", value: quantile.valueMs))
                }
            }
        }
        return metrics
    }

    /// Findings by severity.
    public static func check(_ report: CheckReport) -> [HistoryMetric] {
        Severity.allCases.map { severity in
            HistoryMetric(
                name: "findings.\(severity.rawValue)", unit: "count",
                value: Double(report.findings.filter { $0.severity == severity }.count))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context): return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "bad value at \(path(context.codingPath))"
        @unknown default: return "bad value"
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "the top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}
