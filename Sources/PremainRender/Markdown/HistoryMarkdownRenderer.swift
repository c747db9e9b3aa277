import PremainModel

/// `premain history show --format markdown`, and the trend section `premain pr` adds to its
/// comment: one row per metric with a sparkline, the last value and the steps found.
public enum HistoryMarkdownRenderer {
    public static func render(_ report: HistoryReport) -> String {
        "## premain history\n\n\(Plural.count(report.reports, "report")) in `\(MarkdownEscape.text(report.database))`.\n\n"
            + table(report.series)
    }

    static func table(_ series: [HistorySeries]) -> String {
        guard !series.isEmpty else { return "No metric recorded yet.\n" }
        var lines = ["| metric | trend | commits | last | step changes |", "| --- | --- | ---: | ---: | --- |"]
        for entry in series {
            let values = entry.points.map(\.value)
            let last = values.last.map { HistoryFormat.value($0, unit: entry.unit) } ?? "-"
            let steps =
                entry.steps.isEmpty
                ? "none"
                : entry.steps.map { MarkdownEscape.text(HistoryFormat.stepText($0, unit: entry.unit)) }.joined(
                    separator: "<br>")
            lines.append(
                "| \(MarkdownEscape.text(entry.metric)) | \(HistoryFormat.sparkline(values)) | \(entry.points.count) | \(last) | \(steps) |"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension HistoryMarkdownRenderer {
    /// The trend section of a pull-request comment: each metric's series on the base branch
    /// (sparkline, last value, steps) and, in `head`, this pull request's value of the metric
    /// (`nil` or absent: not measured). "" when the history holds no series.
    public static func pullRequestTrend(_ history: HistoryReport, head: [String: Double]) -> String {
        guard !history.series.isEmpty else { return "" }
        var lines = [
            "### Trend on the base branch", "",
            "| metric | trend (oldest → newest) | commits | last | this pull request | step changes |",
            "| --- | --- | ---: | ---: | ---: | --- |",
        ]
        for entry in history.series {
            let values = entry.points.map(\.value)
            let last = values.last.map { HistoryFormat.value($0, unit: entry.unit) } ?? "-"
            let current = head[entry.metric].map { HistoryFormat.value($0, unit: entry.unit) } ?? "-"
            let steps =
                entry.steps.isEmpty
                ? "none"
                : entry.steps.map { MarkdownEscape.text(HistoryFormat.stepText($0, unit: entry.unit)) }.joined(
                    separator: "<br>")
            lines.append(
                "| \(MarkdownEscape.text(entry.metric)) | \(HistoryFormat.sparkline(values)) | \(entry.points.count) | \(last) | \(current) | \(steps) |"
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
