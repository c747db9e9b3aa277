import PremainModel

/// The launch matrix's leading table in text and Markdown: one line per row (launch ×
/// temperature) with its status and its median at each milestone it reached, before each row's
/// own report. Pure.
public enum MatrixText {
    /// The milestones in the table, in launch order.
    static let milestones: [Milestone] = [.main, .firstOutput, .ready, .exit]

    /// The cells of one measured row: row, status, then each milestone's median ("–" unreached).
    static func cells(_ m: LaunchMeasurement) -> [String] {
        [m.rowLabel, m.status.rawValue]
            + milestones.map { m.milestones[$0].map { Milliseconds.number($0.medianMs) } ?? "–" }
    }

    static let headers = ["row", "status"] + milestones.map { "\($0.title) ms" }

    /// "premain measure: 3 rows (2 launches)" and the table; "" unless `report` is a matrix.
    public static func measureText(_ report: MeasureReport, width: Int) -> String {
        guard report.isMatrix else { return "" }
        var table = TextTable(
            headers: headers, alignments: [.left, .left] + milestones.map { _ in .right }, maxWidth: width)
        for m in report.measurements { table.add(cells(m)) }
        return "premain measure: \(summary(report))\n" + table.render() + "\n"
    }

    /// The same as a Markdown table under a heading; "" unless `report` is a matrix.
    public static func measureMarkdown(_ report: MeasureReport) -> String {
        guard report.isMatrix else { return "" }
        var out = "## premain measure: \(summary(report))\n\n"
        out += "| " + headers.joined(separator: " | ") + " |\n"
        out += "|" + headers.indices.map { $0 < 2 ? "---|" : "---:|" }.joined() + "\n"
        for m in report.measurements {
            out += "| " + cells(m).map { MarkdownEscape.text($0) }.joined(separator: " | ") + " |\n"
        }
        return out + "\n"
    }

    /// "3 rows of 2 launches".
    static func summary(_ report: MeasureReport) -> String {
        let launches = Set(report.measurements.map { $0.launch ?? "" }).count
        return
            "\(Plural.count(report.measurements.count, "row")) of \(Plural.count(launches, "launch", "launches")) (launch × temperature)"
    }
}

extension MatrixText {
    /// The cells of one compared row: row, verdict, the deciding time, its Δ with interval, runs.
    static func cells(_ r: CompareReport) -> [String] {
        let deciding = r.decidingTime
        let delta = deciding?.difference.map {
            "\(Milliseconds.signed($0.medianMs)) [\(Milliseconds.signed($0.lowMs)), \(Milliseconds.signed($0.highMs))]"
        }
        return [
            r.rowLabel, r.outcome.title, deciding?.quantity.title ?? "–", delta ?? "–", "\(r.runs.perSide)",
        ]
    }

    static let compareHeaders = ["row", "verdict", "decided on", "Δ ms [interval]", "runs"]

    /// "compare-matrix: regression (worst of 3 rows)", the rows' table, then each row's report.
    public static func compareText(_ report: CompareMatrixReport, width: Int, scope: SourceScope? = nil) -> String {
        var table = TextTable(
            headers: compareHeaders, alignments: [.left, .left, .left, .right, .right], maxWidth: width)
        for row in report.launches { table.add(cells(row)) }
        var out =
            "premain compare: \(report.verdict.title) (the worst of \(Plural.count(report.launches.count, "row")))\n"
        out += table.render() + "\n"
        for row in report.launches {
            out += "\n── \(TextSafety.display(row.rowLabel)) ──\n"
            out += CompareTextRenderer.render(row, width: width, scope: scope)
        }
        return out
    }

    /// The same in Markdown: the rows' table, then each row's report folded.
    public static func compareMarkdown(_ report: CompareMatrixReport, scope: SourceScope? = nil) -> String {
        var out =
            "## premain compare: \(report.verdict.title) (the worst of \(Plural.count(report.launches.count, "row")))\n\n"
        out += "| " + compareHeaders.joined(separator: " | ") + " |\n|---|---|---|---:|---:|\n"
        for row in report.launches {
            out += "| " + cells(row).map { MarkdownEscape.text($0) }.joined(separator: " | ") + " |\n"
        }
        for row in report.launches {
            out += "\n<details><summary>\(MarkdownEscape.text(row.rowLabel)): \(row.outcome.title)</summary>\n\n"
            out += CompareMarkdownRenderer.render(row, scope: scope) + "\n</details>\n"
        }
        return out
    }
}

extension MatrixText {
    /// The rows of a pull request's launch matrix that changed (any verdict but no change), worst first.
    static func changed(_ rows: [CompareReport]) -> [CompareReport] {
        let order = VerdictStatus.allCases
        return rows.enumerated().filter { $0.element.outcome != .noChange }
            .sorted { a, b in
                let (x, y) = (
                    order.firstIndex(of: a.element.outcome) ?? 0, order.firstIndex(of: b.element.outcome) ?? 0
                )
                return x != y ? x < y : a.offset < b.offset
            }.map(\.element)
    }

    /// One row that changed, as plain text: its verdict, the deciding quantity's Δ with its
    /// interval, and its largest cause at its place.
    static func changeLine(_ row: CompareReport, scope: SourceScope?) -> (verdict: String, delta: String, cause: String)
    {
        var delta = "–"
        if let time = row.decidingTime, let difference = time.difference {
            delta =
                "\(CauseText.decidingChange(row) ?? time.quantity.shortTitle) "
                + "(\(CauseText.interval(difference, level: row.settings.confidence)))"
        }
        let cause = CauseText.claimed(row).first.map {
            CauseText.lead($0, scope: scope) + ", \(CauseText.share($0.share))"
        }
        return (row.outcome.title, delta, cause ?? "–")
    }

    /// The pull request comment's lead over the launch matrix: a line per row that changed
    /// (verdict, Δ at its end with interval, cause at file:line and share), the unchanged rows
    /// folded into one line naming them. "" for one launch (`--run`).
    public static func pullRequestMarkdown(_ rows: [CompareReport], scope: SourceScope? = nil) -> String {
        guard !rows.isEmpty else { return "" }
        let changed = changed(rows)
        var out =
            "**Launch matrix**: \(Plural.count(changed.count, "row")) of \(rows.count) changed (launch × temperature, each compared paired and interleaved)\n\n"
        if !changed.isEmpty {
            out += "| launch | verdict | change (95 % interval) | cause | runs |\n|---|---|---|---|---:|\n"
            for row in changed {
                let line = changeLine(row, scope: scope)
                out +=
                    "| `\(MarkdownEscape.code(row.rowLabel))` | \(MarkdownEscape.text(line.verdict)) | \(MarkdownEscape.text(line.delta)) | \(MarkdownEscape.text(line.cause, limit: 300)) | \(row.runs.perSide) |\n"
            }
            out += "\n"
        }
        let unchanged = rows.filter { $0.outcome == .noChange }
        if !unchanged.isEmpty {
            let names = unchanged.map { "`\(MarkdownEscape.code($0.rowLabel))`" }.joined(separator: ", ")
            out +=
                "<sub>\(Plural.count(unchanged.count, "launch", "launches")) unchanged: \(names).</sub>\n\n"
        }
        return out
    }

    /// The same for a terminal: one line per row that changed, then the unchanged ones named.
    public static func pullRequestText(_ rows: [CompareReport], width: Int, scope: SourceScope? = nil) -> String {
        guard !rows.isEmpty else { return "" }
        let changed = changed(rows)
        var out = "launch matrix: \(Plural.count(changed.count, "row")) of \(rows.count) changed\n"
        if !changed.isEmpty {
            var table = TextTable(
                headers: ["launch", "verdict", "change (95 % interval)", "cause", "runs"],
                alignments: [.left, .left, .left, .left, .right], maxWidth: width)
            for row in changed {
                let line = changeLine(row, scope: scope)
                table.add(
                    [row.rowLabel, line.verdict, line.delta, line.cause, "\(row.runs.perSide)"].map(TextSafety.display))
            }
            out += table.render() + "\n"
        }
        let unchanged = rows.filter { $0.outcome == .noChange }.map { TextSafety.display($0.rowLabel) }
        if !unchanged.isEmpty {
            out +=
                "\(Plural.count(unchanged.count, "launch", "launches")) unchanged: \(unchanged.joined(separator: ", "))\n"
        }
        return out
    }
}
