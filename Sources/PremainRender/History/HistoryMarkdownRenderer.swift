import PremainModel

/// `premain history show --format markdown`, and the trend section `premain pr` adds to its
/// comment: one row per metric with a sparkline, the last value and the steps found.
public enum HistoryMarkdownRenderer {
    public static func render(_ report: HistoryReport) -> String {
        "## premain history\n\n\(report.reports) reports in `\(MarkdownEscape.text(report.database))`.\n\n" + table(report.series)
    }

    /// The section of a pull-request comment: "### Trend" and the table, or "" when the
    /// history holds no series.
    public static func trendSection(_ report: HistoryReport) -> String {
        guard !report.series.isEmpty else { return "" }
        return "\n### Trend on the base branch\n\n" + table(report.series)
    }

    static func table(_ series: [HistorySeries]) -> String {
        guard !series.isEmpty else { return "No metric recorded yet.\n" }
        var lines = ["| metric | trend | commits | last | step changes |", "| --- | --- | ---: | ---: | --- |"]
        for entry in series {
            let values = entry.points.map(\.value)
            let last = values.last.map { HistoryFormat.value($0, unit: entry.unit) } ?? "-"
            let steps = entry.steps.isEmpty ? "none"
                : entry.steps.map { MarkdownEscape.text(HistoryFormat.stepText($0, unit: entry.unit)) }.joined(separator: "<br>")
            lines.append("| `\(MarkdownEscape.text(entry.metric))` | \(HistoryFormat.sparkline(values)) | \(entry.points.count) | \(last) | \(steps) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
