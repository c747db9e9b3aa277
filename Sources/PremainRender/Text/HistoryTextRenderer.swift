import PremainModel

/// `premain history show` as text: per metric its trend as a sparkline, first and last value,
/// noise and step changes; with one metric, every point as well.
public enum HistoryTextRenderer {
    public static func render(_ report: HistoryReport) -> String {
        var lines = [
            "History: \(TextSafety.display(report.database)), \(Plural.count(report.reports, "report")), \(Plural.count(report.series.count, "metric"))"
        ]
        if report.series.isEmpty {
            lines.append("No metric recorded yet: add reports with 'premain history add REPORT.json'.")
        }
        for series in report.series {
            lines.append("")
            let values = series.points.map(\.value)
            lines.append(
                "\(TextSafety.display(series.metric)) (\(series.unit)), \(Plural.count(series.points.count, "commit")), noise ±\(HistoryFormat.value(series.noise, unit: series.unit))"
            )
            if let first = values.first, let last = values.last {
                lines.append(
                    "  \(HistoryFormat.sparkline(values))  first \(HistoryFormat.value(first, unit: series.unit)), last \(HistoryFormat.value(last, unit: series.unit))"
                )
            }
            if series.steps.isEmpty {
                lines.append("  no step change")
            } else {
                lines += series.steps.map { "  " + HistoryFormat.stepText($0, unit: series.unit) }
            }
            if report.series.count == 1 {
                let steps = Set(series.steps.map(\.index))
                for (index, point) in series.points.enumerated() {
                    let mark = steps.contains(index) ? "  ← step" : ""
                    lines.append(
                        "  \(HistoryFormat.commit(point.commit, report: point.report))  \(HistoryFormat.value(point.value, unit: series.unit))\(mark)"
                    )
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
