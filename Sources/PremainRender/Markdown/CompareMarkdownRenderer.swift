import PremainModel

/// Renders a `CompareReport` as Markdown for a pull-request comment: the verdict naming the
/// measured command and the runs, the noise warnings next, then the gated times and the
/// evidence, details folded away. `section` is the part `premain pr` embeds in its own comment.
/// Every string that comes from the command line or a binary goes through `MarkdownEscape`.
public enum CompareMarkdownRenderer {
    public static let marker = "<!-- premain-compare -->"

    /// A whole comment: marker, heading, `section`.
    public static func render(_ report: CompareReport, scope: SourceScope? = nil) -> String {
        marker + "\n## premain: paired start-up comparison\n\n" + section(report, scope: scope) + "\n"
    }

    /// The verdict headline, the causes, warnings, tables and details, without marker or heading.
    public static func section(_ report: CompareReport, scope: SourceScope? = nil) -> String {
        var lines: [String] = [headline(report, scope: scope)]
        lines += why(report, scope: scope)
        for reason in report.reasons { lines.append("- " + MarkdownEscape.text(reason)) }
        if !report.warnings.isEmpty {
            lines.append("")
            lines += MarkdownEscape.quoted(
                report.warnings.map {
                    "⚠️ " + MarkdownEscape.text($0.message) + " — " + MarkdownEscape.text($0.advice)
                })
        }
        let level = Int((report.settings.confidence * 100).rounded())
        lines.append("")
        lines.append("| time | base | head | Δ (\(level) % interval) | threshold | result |")
        lines.append("|---|---:|---:|---:|---:|---|")
        for time in report.times where time.gated || time.quantity == .cpuTime {
            lines.append(timeRow(time))
        }
        if let instructions = report.instructions {
            lines.append("")
            lines.append("| instructions (callgrind, exact) | base | head | Δ | result |")
            lines.append("|---|---:|---:|---:|---|")
            for row in instructions.rows where row.base != nil || row.head != nil {
                lines.append(
                    "| \(row.title) | \(CompareTextRenderer.grouped(row.base)) | \(CompareTextRenderer.grouped(row.head)) | "
                        + "\(row.change.map { CompareTextRenderer.signed(Double($0)) } ?? "–") | \(CompareTextRenderer.resultTitle(instructions.result)) |"
                )
            }
            for function in instructions.functions.prefix(5) {
                lines.append(
                    "| ↳ " + MarkdownEscape.text(function.name, limit: 120) + " ("
                        + MarkdownEscape.text(report.objectName(function.object), limit: 80)
                        + ") | \(CompareTextRenderer.grouped(function.base)) | \(CompareTextRenderer.grouped(function.head)) | "
                        + "\(CompareTextRenderer.signed(Double(function.change))) | |")
            }
        }
        let evidence = report.counts.filter { $0.result != .noChange }
        if !evidence.isEmpty {
            lines.append("")
            lines.append("| count | base | head | Δ | result |")
            lines.append("|---|---:|---:|---:|---|")
            for count in evidence { lines.append(countRow(count)) }
        }
        lines.append("")
        lines.append("<details><summary>All quantities, runs and conditions</summary>")
        lines.append("")
        lines.append("| time | base | head | Δ (\(level) % interval) | threshold | result |")
        lines.append("|---|---:|---:|---:|---:|---|")
        for time in report.times { lines.append(timeRow(time)) }
        lines.append("")
        lines.append("| count | base | head | Δ | result |")
        lines.append("|---|---:|---:|---:|---|")
        for count in report.counts { lines.append(countRow(count)) }
        lines.append("")
        lines.append(
            "- base: " + MarkdownEscape.text(report.base.label) + "; head: " + MarkdownEscape.text(report.head.label))
        lines.append("- runs: " + MarkdownEscape.text(CompareTextRenderer.runsLine(report)))
        let c = report.conditions
        lines.append(
            "- machine: "
                + MarkdownEscape.text(
                    "\(c.cpuModel ?? "unknown CPU"), \(c.onlineCPUs) CPUs, kernel \(c.kernel), glibc \(c.glibcVersion), \(c.date)"
                ))
        lines.append("")
        lines.append("</details>")
        return lines.joined(separator: "\n")
    }

    /// "**Why** — explained 52.1 of 54.4 ms (96 %)" and the causes' table; `[]` without an explanation.
    static func why(_ report: CompareReport, scope: SourceScope?) -> [String] {
        guard let explanation = report.explanation else { return [] }
        let claimed =
            !CauseText.claimed(report).isEmpty || report.verdict == .regression || report.verdict == .improvement
        var lines = [
            "",
            "**\(claimed ? "Why" : "What moved")** — \(explanation.quantity.shortTitle) \(Milliseconds.signed(explanation.changeMs)), "
                + MarkdownEscape.text(CauseText.explained(explanation))
                + (explanation.tracedRunsPerSide > 0 ? ", \(explanation.tracedRunsPerSide) traced runs per side" : ""),
        ]
        let causes = report.causes ?? []
        if causes.isEmpty {
            lines.append("")
            lines.append("Nothing traced or timed by the loader moved enough to be named.")
        } else {
            let level = Int((report.settings.confidence * 100).rounded())
            lines.append("")
            lines.append("| cause | kind | object | source | base | head | Δ (\(level) % interval) | share |")
            lines.append("|---|---|---|---|---:|---:|---:|---:|")
            for cause in causes {
                let source = CauseText.source(cause, scope: scope).map { "`" + MarkdownEscape.code($0) + "`" } ?? "–"
                lines.append(
                    "| \(codeName(cause.title)) | \(cause.description)\(cause.staticChange.map { "<br><sub>" + MarkdownEscape.text($0, limit: 200) + "</sub>" } ?? "") | \(MarkdownEscape.text(cause.objectName, limit: 80)) | \(source) | "
                        + "\(cause.base.map { Milliseconds.text($0.medianMs) } ?? "–") | \(cause.head.map { Milliseconds.text($0.medianMs) } ?? "–") | "
                        + "\(Milliseconds.signed(cause.difference.medianMs)) (\(CauseText.interval(cause.difference, level: report.settings.confidence))) | "
                        + "\(CauseText.share(cause.share)) |")
            }
            if abs(explanation.unexplainedMs) >= 0.0005 {
                lines.append("")
                lines.append(
                    "<sub>Unexplained: \(Milliseconds.signed(explanation.unexplainedMs)) (not spread over the causes). "
                        + "Function times are traced (breakpoints, bias removed), object times are the loader's own lines.</sub>"
                )
            }
        }
        lines += MarkdownEscape.quoted(explanation.notes.map { "ℹ️ " + MarkdownEscape.text($0) })
        lines.append("")
        return lines
    }

    /// "❌ **Start-up regressed** for `app --version`: first output +54.4 ms (+358 %) —
    /// `Tool.keywordTable` (new lazy global, Keywords.swift:12) takes 51.7 ms · 40 runs per side, paired".
    static func headline(_ report: CompareReport, scope: SourceScope? = nil) -> String {
        var icon: String
        switch report.verdict {
        case .regression: icon = "❌ **Start-up regressed**"
        case .improvement: icon = "🟢 **Start-up improved**"
        case .noChange, .pass:
            // A change seen but under the floor is said as seen (issue 36, item 2): a sub-ms
            // program's +57 % is not "no change".
            if let seen = underThreshold(report) {
                icon =
                    "✅ **No change beyond the ±\(Milliseconds.text(seen.thresholdMs)) threshold**"
                    + " (detected \(seen.change))"
            } else {
                icon = "✅ **No start-up change**"
            }
        // compare writes only the four above; the rest are read as undecided.
        case .inconclusive, .runFailed, .findings, .notMeasured, .unconfirmed: icon = "⚠️ **Inconclusive**"
        }
        // A row of the launch matrix is named by its launch, its program by its file (the labels
        // are the sides' folders then).
        var command =
            ([ObjectName.fileName(report.launch == nil ? report.head.label : report.head.path)]
            + report.arguments).joined(separator: " ")
        if report.launch != nil { command = "launch \(report.rowLabel) (\(command))" }
        var text = "\(icon) for " + MarkdownEscape.text(command)
        if let change = CauseText.decidingChange(report) {
            text += ": " + MarkdownEscape.text(change)
        }
        if let top = CauseText.claimed(report).first {
            var place = [top.description]
            if top.function != nil, top.object != StartupCause.executableRole {
                place.append("in " + MarkdownEscape.text(top.object, limit: 80))
            }
            if let source = CauseText.source(top, scope: scope) {
                place.append("`" + MarkdownEscape.code(source) + "`")
            }
            text += " — \(codeName(top.title)) (\(place.joined(separator: ", "))) \(CauseText.amount(top))"
        }
        text += " · \(report.runs.perSide) runs per side, paired and interleaved"
        return text
    }

    /// The first gated quantity whose change was detected but stayed under its threshold:
    /// "+0.37 ms, +57 %, time to main".
    static func underThreshold(_ report: CompareReport) -> (thresholdMs: Double, change: String)? {
        guard let time = report.times.first(where: { $0.gated && $0.detectedUnderThreshold == true }),
            let difference = time.difference
        else { return nil }
        var change = Milliseconds.signed(difference.medianMs)
        if time.base.medianMs > 0 {
            let percent = difference.medianMs / time.base.medianMs * 100
            change += ", \(percent >= 0 ? "+" : "−")\(Milliseconds.number(abs(percent), decimals: 0)) %"
        }
        return (time.thresholdMs, change + ", " + time.quantity.title)
    }

    /// A function's name as code: "`keywordTable`"; a default argument's parameter and
    /// function each as code ("`registry` of `Tool.ruleCount(registry:)`").
    static func codeName(_ name: String) -> String {
        let parts = name.split(separator: "`", omittingEmptySubsequences: false)
        if parts.count == 3, parts[0].isEmpty, parts[2].hasPrefix(" of ") {
            return
                "`\(MarkdownEscape.code(String(parts[1]), limit: 60))` of `\(MarkdownEscape.code(String(parts[2].dropFirst(4)), limit: 120))`"
        }
        return "`\(MarkdownEscape.code(name, limit: 120))`"
    }

    static func timeRow(_ time: TimeComparison) -> String {
        let difference =
            time.difference.map {
                "\(Milliseconds.signed($0.medianMs)) (\(CompareTextRenderer.signedNumber($0.lowMs)) … \(CompareTextRenderer.signedNumber($0.highMs)))"
            } ?? "–"
        return "| \(time.quantity.title)\(time.gated ? " ★" : "") | \(Milliseconds.text(time.base.medianMs)) | "
            + "\(Milliseconds.text(time.head.medianMs)) | \(difference) | ±\(Milliseconds.text(time.thresholdMs)) | "
            + "\(CompareTextRenderer.resultTitle(time.result))\(time.detectedUnderThreshold == true ? " (detected, under the threshold)" : "") |"
    }

    static func countRow(_ count: CountComparison) -> String {
        "| \(count.quantity.title) | \(CompareTextRenderer.number(count.base.median)) | \(CompareTextRenderer.number(count.head.median)) | "
            + "\(count.difference.map { CompareTextRenderer.signed($0.median) } ?? "–") | \(CompareTextRenderer.resultTitle(count.result)) |"
    }
}
