/// The result of `premain history show`: every metric's series across the recorded reports,
/// oldest first, with the step changes found in it. Codable; JSON `schemaVersion` 1.
public struct HistoryReport: Codable, Equatable, Sendable, KindedReport {
    public static let kind = ReportKind.history
    public var schemaVersion: Int = 1
    public var kind = ReportKindField<HistoryReport>()
    public var tool: ToolInfo
    /// The database as given on the command line.
    public var database: String
    /// Reports in the database (all of them, not only those shown).
    public var reports: Int
    /// Sorted by metric name.
    public var series: [HistorySeries]

    public init(tool: ToolInfo = .current, database: String, reports: Int, series: [HistorySeries]) {
        self.tool = tool
        self.database = database
        self.reports = reports
        self.series = series
    }
}

/// One metric over the commits, one point per commit (the median of that commit's reports).
public struct HistorySeries: Codable, Equatable, Sendable {
    /// Names such as `main`, `firstOutput`, `count.symbolLookups`, `trace.function.<name>`.
    public var metric: String
    /// `ms` or `count`.
    public var unit: String
    /// Oldest first.
    public var points: [HistoryPoint]
    /// The robust noise estimate the steps were judged against (`StepDetector.noise`); 0 when
    /// the metric never varies between neighbouring commits.
    public var noise: Double
    /// Step changes, oldest first; `[]` when none was found.
    public var steps: [StepChange]

    public init(metric: String, unit: String, points: [HistoryPoint], noise: Double, steps: [StepChange]) {
        self.metric = metric
        self.unit = unit
        self.points = points
        self.noise = noise
        self.steps = steps
    }
}

/// One commit's value of a metric.
public struct HistoryPoint: Codable, Equatable, Sendable {
    /// The commit the reports were recorded for; `nil` when added without `--commit`.
    public var commit: String?
    /// The database's id of the commit's last report (the order reports were added in).
    public var report: Int
    /// When that report was added (UTC, ISO 8601).
    public var recordedAt: String
    /// The median over the commit's reports.
    public var value: Double
    /// How many reports the commit has for this metric.
    public var reports: Int

    public init(commit: String?, report: Int, recordedAt: String, value: Double, reports: Int = 1) {
        self.commit = commit
        self.report = report
        self.recordedAt = recordedAt
        self.value = value
        self.reports = reports
    }

    /// The commit, or "report N" when none was given.
    public var label: String { commit ?? "report \(report)" }
}

/// A lasting shift of a metric's level between two runs of commits.
public struct StepChange: Codable, Equatable, Sendable {
    /// Index into the series' points of the first point after the step.
    public var index: Int
    /// The first commit after the step (the one to look at), or `nil` when it has none.
    public var commit: String?
    /// Its report id.
    public var report: Int
    /// Medians of the segment before and after the step (between neighbouring steps).
    public var before: Double
    public var after: Double
    /// Two-sided Mann–Whitney p-value of the two segments.
    public var pValue: Double

    public init(index: Int, commit: String?, report: Int, before: Double, after: Double, pValue: Double) {
        self.index = index
        self.commit = commit
        self.report = report
        self.before = before
        self.after = after
        self.pValue = pValue
    }

    /// `after - before`: positive when the metric grew.
    public var shift: Double { after - before }
}
