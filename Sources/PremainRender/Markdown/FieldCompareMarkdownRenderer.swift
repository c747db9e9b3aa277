import PremainModel

/// `premain field compare --format markdown`: the verdict and why, then one table per row.
public enum FieldCompareMarkdownRenderer {
    public static func render(_ report: FieldCompareReport) -> String {
        var out = "## premain field compare: \(report.verdict.title)\n\n"
        for reason in report.reasons { out += "- \(MarkdownEscape.text(reason))\n" }
        if !report.reasons.isEmpty { out += "\n" }
        for row in report.rows {
            out +=
                "#### `\(MarkdownEscape.code(row.executable))`\(row.scenario.map { " \(MarkdownEscape.text($0))" } ?? "") (\(row.temperature.rawValue)): \(row.verdict.title)\n\n"
            out +=
                "\(FieldFormat.version(row.oldVersion)) → \(FieldFormat.version(row.newVersion)), \(row.oldSamples) → \(row.newSamples) launches\n\n"
            out += FieldMarkdownRenderer.table(
                FieldCompareFormat.header, row.percentiles.map(FieldCompareFormat.cells), codeColumns: [])
            out += "\n"
        }
        for line in report.unmatched { out += "- \(MarkdownEscape.text(line))\n" }
        out +=
            "\nGated: \(report.settings.gated.map(\.rawValue).joined(separator: ", ")); threshold max(\(Milliseconds.text(report.settings.thresholdMs)), \(Milliseconds.number(report.settings.thresholdPercent, decimals: 1)) % of old).\n"
        return out
    }
}
