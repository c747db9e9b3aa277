import PremainModel

/// `premain field compare` as text: the verdict and why, then each row's percentiles old → new
/// with the difference and its interval.
public enum FieldCompareTextRenderer {
    public static func render(_ report: FieldCompareReport) -> String {
        var out = "premain field compare: \(report.verdict.title)\n"
        for reason in report.reasons { out += "  \(reason)\n" }
        out += "\n"
        for row in report.rows {
            out +=
                "\(row.executable)\(row.scenario.map { " \($0)" } ?? "") (\(row.temperature.rawValue)): \(FieldFormat.version(row.oldVersion)) → \(FieldFormat.version(row.newVersion)), \(row.oldSamples) → \(row.newSamples) launches: \(row.verdict.title)\n"
            var table = TextTable(
                headers: FieldCompareFormat.header, alignments: [.left, .right, .right, .right, .right, .left],
                maxWidth: TextFit.unlimited)
            for change in row.percentiles { table.add(FieldCompareFormat.cells(change)) }
            out += table.render() + "\n"
        }
        for line in report.unmatched { out += "Note: \(line)\n" }
        out +=
            "Gated: \(report.settings.gated.map(\.rawValue).joined(separator: ", ")); threshold max(\(Milliseconds.text(report.settings.thresholdMs)), \(Milliseconds.number(report.settings.thresholdPercent, decimals: 1)) % of old); intervals [new low − old high, new high − old low] of the 95 % intervals (≥ 90 % coverage).\n"
        return out
    }
}

/// The cells both compare renderers write.
enum FieldCompareFormat {
    static let header = ["percentile", "old", "new", "difference", "interval", "verdict"]

    static func cells(_ change: FieldPercentileDifference) -> [String] {
        let interval =
            change.lowMs.flatMap { low in
                change.highMs.map { "[\(Milliseconds.signed(low)), \(Milliseconds.signed($0))]" }
            }
            ?? "too few launches"
        return [
            change.percentile.rawValue + (change.gated ? "" : " (not gated)"), Milliseconds.text(change.oldMs),
            Milliseconds.text(change.newMs), Milliseconds.signed(change.differenceMs), interval, change.verdict.title,
        ]
    }
}
