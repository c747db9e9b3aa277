import PremainModel

/// `--format html`: one self-contained page per report (inline SVG and CSS, no script, no
/// reference outside the file). Pure: report values in, text out; every string that comes
/// from a binary, a report or the command line goes through `HTMLEscape`.
public enum HTMLReportRenderer {
    /// `premain history show --format html`: a chart per metric with its steps, and a table.
    public static func render(_ report: HistoryReport) -> String {
        var body = "<h1>premain history</h1>\n<p class=\"sub\">\(report.reports) reports in \(HTMLEscape.text(report.database)), \(report.series.count) metrics</p>\n"
        if report.series.isEmpty { body += "<p>No metric recorded yet.</p>\n" }
        var rows: [[String]] = []
        for series in report.series {
            rows.append([
                "<code>\(HTMLEscape.text(series.metric))</code>", HTMLEscape.text(HistoryFormat.sparkline(series.points.map(\.value))),
                "\(series.points.count)", series.points.last.map { HTMLEscape.text(HistoryFormat.value($0.value, unit: series.unit)) } ?? "-",
                series.steps.isEmpty ? "none" : series.steps.map { HTMLEscape.text(HistoryFormat.stepText($0, unit: series.unit)) }.joined(separator: "<br>"),
            ])
        }
        if !rows.isEmpty {
            body += HTMLPage.table(["metric", "trend", "commits", "last", "step changes"], rows, numeric: [2, 3])
        }
        for series in report.series {
            body += "<h2>\(HTMLEscape.text(series.metric))</h2>\n<div class=\"chart\">\(HistoryChart.svg(series))</div>\n"
        }
        return HTMLPage.document(title: "premain history", body: body)
    }
}
