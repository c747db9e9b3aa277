import PremainModel

/// Renders a `DiffReport` as a GitHub pull-request comment: a fixed first line by which CI
/// finds and updates one sticky comment, the verdict first, head-vs-base tables, details in
/// collapsible sections, a Mermaid gantt chart of both start-up timelines, and the
/// conditions in a footer. Every string that comes from a binary goes through
/// `MarkdownEscape`. The result never exceeds `limit` characters. Pure: report in, text out.
public enum DiffMarkdownRenderer {
    /// The first line of every comment; CI looks for it to update the comment in place.
    public static let marker = "<!-- premain-report -->"
    public static let heading = "## premain: start-up report"
    /// GitHub refuses comments over 65,536 characters.
    public static let defaultLimit = 65_000

    public static func render(_ report: DiffReport, top: Int = 10, limit: Int = defaultLimit) -> String {
        var required: [String] = [marker + "\n" + heading + "\n\n" + verdict(report)]
        var optional: [String] = []
        if let measured = measuredSection(report, top: top) { required.append(measured) }
        if let statics = staticSection(report, top: top) { required.append(statics) }
        required.append(findingsSection(report, top: top))
        if let timeline = timelineSection(report) { optional.append(timeline) }
        if let details = measuredDetails(report) { optional.append(details) }
        if let details = objectDetails(report) { optional.append(details) }
        let footer = footer(report)
        return assemble(required: required, optional: optional, footer: footer, limit: limit)
    }

    /// Joins sections; optional ones that do not fit are left out with a note; a required
    /// one that does not fit is cut at a line boundary. Always ≤ `limit`.
    static func assemble(required: [String], optional: [String], footer: String, limit: Int) -> String {
        let omittedNote =
            "\n\n> Some sections were left out to keep this comment under \(limit) characters; the JSON report (`--format json`) has everything."
        var budget = limit - footer.count - omittedNote.count - 4
        var parts: [String] = []
        var omitted = false
        for section in required {
            if section.count + 2 <= budget {
                parts.append(section)
                budget -= section.count + 2
            } else {
                omitted = true
                let cut = cutAtLine(section, budget - 2)
                if !cut.isEmpty {
                    parts.append(cut)
                    budget -= cut.count + 2
                }
            }
        }
        for section in optional {
            if section.count + 2 <= budget {
                parts.append(section)
                budget -= section.count + 2
            } else {
                omitted = true
            }
        }
        var text = parts.joined(separator: "\n\n")
        if omitted { text += omittedNote }
        text += "\n\n" + footer + "\n"
        if text.count > limit { text = String(text.prefix(limit)) }
        return text
    }

    /// The longest prefix of whole lines of `text` with at most `budget` characters, leaving
    /// no `<details>` open.
    static func cutAtLine(_ text: String, _ budget: Int) -> String {
        guard budget > 0 else { return "" }
        var out: [Substring] = []
        var used = 0
        var open = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let closing = open > 0 ? "\n</details>" : ""
            if used + line.count + 1 + closing.count > budget { break }
            out.append(line)
            used += line.count + 1
            if line.hasPrefix("<details") { open += 1 }
            if line.hasPrefix("</details>") { open = max(0, open - 1) }
        }
        var result = out.joined(separator: "\n")
        if open > 0 { result += "\n</details>" }
        return result
    }

    static func e(_ raw: String, _ limit: Int = MarkdownEscape.maxLength) -> String {
        MarkdownEscape.text(raw, limit: limit)
    }

    // MARK: verdict

    static func verdict(_ report: DiffReport) -> String {
        let title: String
        switch report.verdict.status {
        case .regression: title = "❌ **Start-up regressed**"
        // diff writes regression, unconfirmed, findings and pass; the rest are read as the
        // nearest of those.
        case .unconfirmed, .inconclusive, .runFailed, .notMeasured:
            title = "⚠️ **Possible start-up regression, not confirmed**"
        case .findings: title = "❌ **Start-up check failed**"
        case .pass, .noChange, .improvement: title = "✅ **No start-up regression**"
        }
        var lines = [title]
        if report.verdict.reasons.isEmpty {
            let tested = report.measured.filter { $0.result.test != nil }.count
            lines[0] +=
                tested > 0
                ? ": no measured change is both significant (α = \(report.settings.alpha)) and larger than the minimum effect"
                : ": no new findings at or above \(report.settings.failOn.rawValue)"
        } else {
            lines += report.verdict.reasons.map { "- " + e($0, 400) }
        }
        if !report.warnings.isEmpty {
            lines.append("")
            lines += MarkdownEscape.quoted(
                report.warnings.map { "⚠️ " + e($0.message, 400) + " — " + e($0.advice, 400) })
        }
        return lines.joined(separator: "\n")
    }

    // MARK: measured

    static func measuredSection(_ report: DiffReport, top: Int) -> String? {
        let milestones = report.measured.filter { $0.scope == .milestone }
        let others = report.measured.filter { $0.scope != .milestone }
            .sorted { abs($0.result.deltaMs ?? 0) > abs($1.result.deltaMs ?? 0) }
        guard !milestones.isEmpty || !others.isEmpty else { return nil }
        var out = "### Start-up time, head vs base (medians)\n\n" + measuredHeader
        for delta in milestones { out += measuredRow(delta) }
        let shown = others.filter { !$0.isNegligible }
            .filter {
                $0.result.change != .noChange && $0.result.change != .untested
                    || abs($0.result.deltaMs ?? 0) >= report.settings.minEffectMs
            }
        for delta in shown.prefix(top) { out += measuredRow(delta) }
        if shown.count > top { out += "| …and \(shown.count - top) more | | | | | | |\n" }
        return out.trimmingTrailingNewline
    }

    static let measuredHeader = "| | base | head | Δ | Δ % | p | |\n|---|---:|---:|---:|---:|---:|---|\n"

    /// One row of the measured table; `fifth` replaces the Δ % column (the details table
    /// shows the bootstrap interval there).
    static func measuredRow(_ delta: MeasuredDelta, fifth: String? = nil) -> String {
        let label: String
        switch delta.scope {
        case .milestone: label = "**time to \(e(MeasuredDelta.milestoneName(delta.subject)))**"
        case .object: label = "initializers of \(e(delta.subject))"
        case .function: label = "\(e(delta.subject)) <sub>in \(e(delta.object ?? "?"))</sub>"
        }
        let result = delta.result
        let p = result.test.map { $0.pValue < 0.0001 ? "<0.0001" : Milliseconds.number($0.pValue, decimals: 4) } ?? "–"
        return
            "| \(label) | \(ms(delta.base?.medianMs)) | \(ms(delta.head?.medianMs)) | \(signedMs(result.deltaMs)) | \(fifth ?? signedPercent(result.percent)) | \(p) | \(marker(result.change)) |\n"
    }

    static func marker(_ change: MeasuredDelta.Change) -> String {
        switch change {
        case .regression: return "🔺 regression"
        case .improvement: return "🟢 improvement"
        case .noChange: return "➖ no change"
        case .added: return "🆕 new"
        case .removed: return "✖️ removed"
        case .untested: return "· not tested"
        }
    }

    /// Figures keep their unit on the same line: a no-break space before "ms" and "%".
    static func ms(_ value: Double?) -> String { value.map { Milliseconds.number($0) + "\u{00A0}ms" } ?? "–" }

    static func signedMs(_ value: Double?) -> String {
        guard let value else { return "–" }
        return (value > 0 ? "+" : "") + ms(value)
    }

    static func signedPercent(_ value: Double?) -> String {
        guard let value else { return "–" }
        return (value > 0 ? "+" : "") + String(format1: value) + "\u{00A0}%"
    }

    static func signedCount(_ delta: CountDelta) -> String {
        let change = delta.delta
        let arrow = change > 0 ? " ▲" : change < 0 ? " ▼" : ""
        guard let base = delta.base, let head = delta.head else {
            return delta.head.map { "\($0) (new)" } ?? delta.base.map { "\($0) (removed)" } ?? "–"
        }
        guard change != 0 else { return "\(head)" }
        let percent =
            base != 0 ? " (\(change > 0 ? "+" : "")\(String(format1: Double(change) / Double(base) * 100)) %)" : ""
        return "\(base) → \(head), \(change > 0 ? "+" : "")\(change)\(percent)\(arrow)"
    }

    // MARK: static

    /// The binaries table (`BinariesMarkdownTable`).
    static func staticSection(_ report: DiffReport, top: Int) -> String? {
        BinariesMarkdownTable.render(report, top: top)
    }

    static func objectDetails(_ report: DiffReport) -> String? {
        let changed = BinariesMarkdownTable.ordered(
            report.objects.filter { $0.status != .unchanged && ($0.place ?? .project) == .project })
        guard !changed.isEmpty else { return nil }
        var out =
            "<details><summary>Relocations by class and sizes</summary>\n\n| object | relative | RELR | symbolic | PLT | copy | IRELATIVE | TLS | imports | file bytes |\n|---|---|---|---|---|---|---|---|---|---|\n"
        for delta in changed {
            let classes = ["relative", "relr", "symbolic", "plt", "copy", "irelative", "tls"].map { name in
                delta.relocations.first { $0.name == name }.map(signedCount) ?? "–"
            }
            out +=
                "| \(e(delta.name)) | \(classes.joined(separator: " | ")) | \(signedCount(delta.imports)) | \(signedCount(delta.fileSize)) |\n"
        }
        return out + "\n</details>"
    }

    static func measuredDetails(_ report: DiffReport) -> String? {
        let all = report.measured
        guard all.count > 1 else { return nil }
        var out =
            "<details><summary>Every measured quantity (\(all.count)), with 99 % bootstrap intervals</summary>\n\n| | base | head | Δ | Δ interval | p | |\n|---|---:|---:|---:|---|---:|---|\n"
        for delta in all {
            let interval = delta.result.interval.map { "\(signedMs($0.lowMs)) … \(signedMs($0.highMs))" } ?? "–"
            out += measuredRow(delta, fifth: interval)
        }
        return out + "\n</details>"
    }

    // MARK: findings

    static func findingsSection(_ report: DiffReport, top: Int) -> String {
        let delta = report.findings
        var out = "### Findings\n\n"
        if delta.new.isEmpty && delta.fixed.isEmpty {
            out += "No new or fixed findings (\(delta.unchanged.count) unchanged)."
        } else {
            out += "\(delta.new.count) new, \(delta.fixed.count) fixed, \(delta.unchanged.count) unchanged.\n\n"
            out += "| | severity | rule | where | finding |\n|---|---|---|---|---|\n"
            let rows = delta.new.map { ("🆕 new", $0) } + delta.fixed.map { ("✅ fixed", $0) }
            for (state, finding) in rows.prefix(top) { out += findingRow(state, finding) }
            if rows.count > top { out += "| …and \(rows.count - top) more | | | | |\n" }
            let advice = delta.new.prefix(top).map {
                "- **\(e($0.rule))** \(e(subjectText($0.subject))): \(e($0.advice, 600))"
            }
            if !advice.isEmpty {
                out +=
                    "\n<details><summary>What to do</summary>\n\n" + advice.joined(separator: "\n") + "\n\n</details>"
            }
        }
        if !delta.unchanged.isEmpty {
            out +=
                "\n\n<details><summary>Unchanged findings (\(delta.unchanged.count))</summary>\n\n| | severity | rule | where | finding |\n|---|---|---|---|---|\n"
            for finding in delta.unchanged.prefix(top * 3) { out += findingRow("", finding) }
            if delta.unchanged.count > top * 3 { out += "| …and \(delta.unchanged.count - top * 3) more | | | | |\n" }
            out += "\n</details>"
        }
        return out.trimmingTrailingNewline
    }

    static func subjectText(_ subject: Finding.Subject) -> String {
        subject.symbol.map { "\(subject.object): \($0)" } ?? subject.object
    }

    static func findingRow(_ state: String, _ finding: Finding) -> String {
        "| \(state) | " + findingCells(finding)
    }

    /// A finding's severity, rule, subject and message cells, ending the row.
    static func findingCells(_ finding: Finding) -> String {
        let severity = finding.severity == .error ? "🔴 error" : finding.severity == .warning ? "🟠 warning" : "🔵 note"
        return
            "\(severity) | \(e(finding.rule)) | \(e(subjectText(finding.subject), 160)) | \(e(finding.pricedMessage, 500)) |\n"
    }

    // MARK: timeline

    static func timelineSection(_ report: DiffReport) -> String? {
        guard !report.base.timeline.isEmpty || !report.head.timeline.isEmpty else { return nil }
        var out =
            "<details open><summary>Start-up timeline (median ms from exec)</summary>\n\n```mermaid\ngantt\n    title Start-up, base vs head (ms from exec, medians)\n    dateFormat x\n    axisFormat %s.%L\n"
        var index = 0
        for (name, side) in [("base", report.base), ("head", report.head)] where !side.timeline.isEmpty {
            out += "    section \(name)\n"
            for span in side.timeline.prefix(40) {
                // Times in µs written as Mermaid's epoch ms, so that the axis format "%s.%L"
                // reads as ms with three decimals.
                let start = Int((span.startMs * 1000).rounded())
                let end = max(start + 1, Int((span.endMs * 1000).rounded()))
                // One decimal, two below 1 ms: a 0.03 ms span does not read "0.0 ms".
                let length = span.endMs - span.startMs
                out +=
                    "    \(MarkdownEscape.mermaid(span.label)) \(Milliseconds.number(length, decimals: length < 0.95 ? 2 : 1)) ms :t\(index), \(start), \(end)\n"
                index += 1
            }
        }
        return out + "```\n\n</details>"
    }

    // MARK: footer

    static func footer(_ report: DiffReport) -> String {
        func describe(_ side: DiffReport.Side, _ name: String) -> String {
            var parts = ["\(name): \(e(side.label, 80)), \(Plural.count(side.objects, "object"))"]
            if let runs = side.runs { parts.append("\(runs) runs, \(side.cold == true ? "cold" : "warm") cache") }
            let preferred = [
                "machine", "cpuModel", "onlineCPUs", "kernel", "glibcVersion", "frequencyGovernor",
                "pinning", "loadAverage1m", "cpu",
            ]
            var keys = preferred.filter { side.conditions[$0] != nil }
            if keys.isEmpty { keys = Array(side.conditions.keys.sorted().prefix(6)) }
            let conditions = keys.map { "\(e($0, 40)) \(e(side.conditions[$0] ?? "", 80))" }
            if !conditions.isEmpty { parts.append(conditions.joined(separator: ", ")) }
            return parts.joined(separator: "; ")
        }
        let settings = report.settings
        return
            "---\n<sub>\(describe(report.base, "base")) · \(describe(report.head, "head")) · regression = Mann–Whitney p < \(settings.alpha) and Δ median > max(\(Milliseconds.number(settings.minEffectMs, decimals: 1)) ms, \(String(format1: settings.minEffectPercent)) %) · premain \(e(report.tool.version))</sub>"
    }
}

extension String {
    var trimmingTrailingNewline: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
