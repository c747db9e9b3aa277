import PremainModel

/// Renders a `PullRequestReport` as one sticky pull-request comment, shaped like size-limit's
/// and bloaty's: the marker CI finds it by, a heading with the verdict, the paired comparison
/// (headline naming the measured command and the runs, noise warnings next, then its tables:
/// `CompareMarkdownRenderer.section`) or "Not measured: <reason>", then the binaries
/// (executables first, sorted by the size of the change, a total row, unchanged objects
/// folded away, toolchain and system libraries last: `BinariesMarkdownTable`), the findings,
/// and a footer. Every name from a binary or the command line goes through `MarkdownEscape`;
/// the result never exceeds `limit` characters. Pure: report in, text out.
public enum PullRequestMarkdownRenderer {
    /// The first line of the comment; the workflow finds the comment to update by it (and by
    /// its author).
    public static let marker = "<!-- premain -->"

    /// `trend`: the base branch's history (`premain pr --history-db`), shown after the
    /// measured section with this pull request's head values beside it; `nil`: no trend.
    /// `trendUnavailable`: why an asked-for trend could not be read (a damaged database, no
    /// usable libsqlite3), said in one line where the trend would be.
    public static func render(
        _ report: PullRequestReport, top: Int = 10,
        limit: Int = DiffMarkdownRenderer.defaultLimit, trend: HistoryReport? = nil,
        trendUnavailable: String? = nil, scope: SourceScope? = nil
    ) -> String {
        var required = [marker + "\n" + heading(report) + "\n\n" + measuredSection(report, scope: scope)]
        if let trend, !trend.series.isEmpty {
            let head = Dictionary((report.compare?.times ?? []).map { ($0.quantity.metricName, $0.head.medianMs) }) {
                first, _ in first
            }
            required.append(HistoryMarkdownRenderer.pullRequestTrend(trend, head: head))
        } else if let trendUnavailable {
            required.append(
                "ℹ️ No trend on the base branch: " + MarkdownEscape.text(trendUnavailable, limit: 600)
                    + ". The history never fails a pull request.")
        }
        if let skipped = skippedNote(report) { required.append(skipped) }
        if let binaries = BinariesMarkdownTable.render(report.diff, top: top) { required.append(binaries) }
        required.append(DiffMarkdownRenderer.findingsSection(report.diff, top: top))
        var optional: [String] = []
        if let details = DiffMarkdownRenderer.objectDetails(report.diff) { optional.append(details) }
        return DiffMarkdownRenderer.assemble(
            required: required, optional: optional, footer: footer(report), limit: limit)
    }

    /// "## premain: ❌ start-up regressed", "## premain: ⚠️ not measured", …
    static func heading(_ report: PullRequestReport) -> String {
        let title: String
        switch report.verdict.status {
        case .runFailed: title = "❌ a run failed"
        case .regression: title = "❌ start-up regressed"
        case .findings: title = "❌ new findings"
        // pr writes runFailed, regression, findings, inconclusive, notMeasured and pass.
        case .inconclusive, .unconfirmed: title = "⚠️ inconclusive"
        case .notMeasured: title = "⚠️ not measured"
        case .pass, .noChange, .improvement:
            title = report.compare?.verdict == .improvement ? "🟢 start-up improved" : "✅ no start-up change"
        }
        return "## premain: " + title
    }

    /// The comparison's section, or the sentence saying why nothing was measured.
    static func measuredSection(_ report: PullRequestReport, scope: SourceScope? = nil) -> String {
        // Over the launch matrix: the rows that changed first, then the leading row in full.
        let matrix = MatrixText.pullRequestMarkdown(report.launches ?? [], scope: scope)
        guard let reason = report.notMeasured else {
            var section = matrix + (report.compare.map { CompareMarkdownRenderer.section($0, scope: scope) } ?? "")
            let others = MatrixText.changed(report.launches ?? []).filter { $0 != report.compare }
            for row in others {
                section +=
                    "\n\n<details><summary>\(MarkdownEscape.text(row.rowLabel)): \(row.outcome.title)</summary>\n\n"
                    + CompareMarkdownRenderer.section(row, scope: scope) + "\n\n</details>"
            }
            return section
        }
        let icon = report.verdict.status == .runFailed ? "❌" : "⚠️"
        if !matrix.isEmpty {
            return matrix + "\(icon) **Not measured in full**: \(MarkdownEscape.text(reason, limit: 600))."
        }
        let command = report.command.map { " " + MarkdownEscape.text($0.joined(separator: " "), limit: 200) } ?? ""
        var text =
            "\(icon) **Start-up\(command.isEmpty ? "" : " of" + command) not measured**: \(MarkdownEscape.text(reason, limit: 600)). "
            + "Only the static facts below were compared; they say nothing about launch time."
        if let compare = report.compare {
            text +=
                "\n\n<details><summary>The comparison until the run failed</summary>\n\n"
                + CompareMarkdownRenderer.section(compare, scope: scope) + "\n\n</details>"
        }
        return text
    }

    /// One line counting what the folders held that was left out, base / head; `nil` unless
    /// that includes relocatable objects or JSON files.
    static func skippedNote(_ report: PullRequestReport) -> String? {
        let base = report.skipped.base
        let head = report.skipped.head
        guard base.isWorthANote || head.isWorthANote else { return nil }
        var parts: [String] = []
        if base.objects + head.objects > 0 {
            let kinds = Array(Set(base.objectExtensions + head.objectExtensions)).filter { !$0.isEmpty }.sorted()
            parts.append(
                "\(base.objects) / \(head.objects) relocatable objects (\(kinds.map { MarkdownEscape.text($0, limit: 20) }.joined(separator: ", ")); `--include-objects` reads them)"
            )
        }
        if !base.notReports.isEmpty || !head.notReports.isEmpty {
            parts.append("\(base.notReports.count) / \(head.notReports.count) JSON files that are not premain reports")
        }
        if base.others + head.others > 0 {
            parts.append("\(base.others) / \(head.others) other files")
        }
        return "<sub>Only ELF executables and shared libraries were read. Left out (base / head): "
            + parts.joined(separator: ", ") + ".</sub>"
    }

    static func footer(_ report: PullRequestReport) -> String {
        func side(_ name: String, _ side: DiffReport.Side, _ commit: String?) -> String {
            let sha = commit.map { " at " + String($0.prefix(12)) } ?? ""
            return
                "\(name): \(MarkdownEscape.text(side.label, limit: 120))\(sha), \(side.objects) object\(side.objects == 1 ? "" : "s")"
        }
        var parts = [
            side("base", report.diff.base, report.commits?.base), side("head", report.diff.head, report.commits?.head),
        ]
        if let settings = report.compare?.settings {
            let level = Int((settings.confidence * 100).rounded())
            parts.append(
                "a change counts beyond ±max(\(Milliseconds.number(settings.thresholdMs, decimals: 1)) ms, "
                    + "\(String(format1: settings.thresholdPercent)) %) at \(level) % confidence")
        }
        parts.append("premain \(MarkdownEscape.text(report.tool.version, limit: 40))")
        return "---\n<sub>" + parts.joined(separator: " · ") + "</sub>"
    }
}
