import PremainModel

/// Renders a `CompareReport` for a terminal: the verdict line with its reasons, the noise
/// warnings, what was spent, then every time and count with its paired interval. Lines wrap
/// at `width` columns (100 by default; `TextFit.unlimited` wraps nothing); nothing is cut.
public enum CompareTextRenderer {
    public static func render(_ report: CompareReport, width: Int = 100, scope: SourceScope? = nil) -> String {
        let wrap = { (line: String) in MeasureTextRenderer.wrap(line, width: width) + "\n" }
        var out = "verdict: \(report.verdict.title)"
        if report.verdict == .regression || report.verdict == .improvement,
            let change = CauseText.decidingChange(report)
        {
            out += ", \(change)"
        }
        out += "\n"
        if let top = CauseText.claimed(report).first {
            out += wrap("  cause: \(TextSafety.display(CauseText.lead(top, scope: scope)))")
        }
        for reason in report.reasons { out += wrap("  - \(TextSafety.display(reason))") }
        out += why(report, width: width, scope: scope)
        if !report.warnings.isEmpty {
            out += "warnings:\n"
            for warning in report.warnings {
                out += wrap("  ! \(TextSafety.display(warning.message)) (\(TextSafety.display(warning.advice)))")
            }
        }
        out += "\n" + wrap("base: \(TextSafety.display(report.base.label))\(buildID(report.base))")
        out += wrap("head: \(TextSafety.display(report.head.label))\(buildID(report.head))")
        out += wrap("runs: \(runsLine(report))")

        let level = Int((report.settings.confidence * 100).rounded())
        var times = TextTable(
            headers: ["time (medians)", "base", "head", "Δ", "\(level) % interval", "threshold", "result"],
            alignments: [.left, .right, .right, .right, .right, .right, .left], maxWidth: width)
        for time in report.times {
            times.add([
                time.quantity.title + (time.gated ? " *" : ""), Milliseconds.text(time.base.medianMs),
                Milliseconds.text(time.head.medianMs), time.difference.map { Milliseconds.signed($0.medianMs) } ?? "-",
                time.difference.map { "\(signedNumber($0.lowMs)) … \(signedNumber($0.highMs))" } ?? "-",
                "±" + Milliseconds.text(time.thresholdMs),
                resultTitle(time.result) + (time.detectedUnderThreshold == true ? " (detected, under threshold)" : ""),
            ])
        }
        out += "\n" + times.render()
        out += "  (* gates the verdict)\n"
        if !report.counts.isEmpty {
            var counts = TextTable(
                headers: ["count (medians)", "base", "head", "Δ", "\(level) % interval", "result"],
                alignments: [.left, .right, .right, .right, .right, .left], maxWidth: width)
            for count in report.counts {
                counts.add([
                    count.quantity.title, number(count.base.median), number(count.head.median),
                    count.difference.map { signed($0.median) } ?? "-",
                    count.difference.map { "\(signed($0.low)) … \(signed($0.high))" } ?? "-",
                    resultTitle(count.result),
                ])
            }
            out += "\n" + counts.render()
        }
        if let instructions = report.instructions {
            out += "\n" + instructionsTable(instructions, width: width)
            for function in instructions.functions {
                out += wrap(
                    "  changed: \(TextSafety.display(function.name)) (\(TextSafety.display(report.objectName(function.object)))) "
                        + "\(grouped(function.base)) -> \(grouped(function.head)), \(signed(Double(function.change)))")
            }
        }
        out += "\n" + ConditionsTextRenderer.render(report.conditions)
        return out
    }

    /// "why (explained 52.1 of 54.4 ms, 96 %): …" and the causes' table; "" without causes.
    static func why(_ report: CompareReport, width: Int, scope: SourceScope?) -> String {
        guard let explanation = report.explanation else { return "" }
        let wrap = { (line: String) in MeasureTextRenderer.wrap(line, width: width) + "\n" }
        let claimed = report.verdict == .regression || report.verdict == .improvement
        var out =
            "\n"
            + wrap(
                "\(claimed ? "why" : "what moved") (\(explanation.quantity.shortTitle) "
                    + "\(Milliseconds.signed(explanation.changeMs)); \(CauseText.explained(explanation))"
                    + (explanation.tracedRunsPerSide > 0
                        ? "; \(explanation.tracedRunsPerSide) traced runs per side in \(String(format1: explanation.tracedSeconds)) s"
                        : "")
                    + "):")
        let causes = report.causes ?? []
        if causes.isEmpty {
            out += "  nothing traced or timed by the loader moved enough to be named\n"
        }
        let level = Int((report.settings.confidence * 100).rounded())
        for (index, cause) in causes.enumerated() {
            var place = [cause.description, TextSafety.display(cause.objectName)]
            if let source = CauseText.source(cause, scope: scope) { place.append(TextSafety.display(source)) }
            out += wrap("  \(index + 1). \(TextSafety.display(cause.title)) — \(place.joined(separator: ", "))")
            let base = cause.base.map { Milliseconds.text($0.medianMs) } ?? "none"
            let head = cause.head.map { Milliseconds.text($0.medianMs) } ?? "none"
            var interval = "\(level) % interval"
            if abs(cause.difference.level - report.settings.confidence) > 1e-9 {
                interval = "\(Int((cause.difference.level * 100).rounded(.down))) % interval"
            }
            out += wrap(
                "     \(base) → \(head), Δ \(Milliseconds.signed(cause.difference.medianMs)) (\(interval) "
                    + "\(CompareTextRenderer.signedNumber(cause.difference.lowMs)) … \(CompareTextRenderer.signedNumber(cause.difference.highMs)), "
                    + "\(cause.difference.pairs) pairs), \(CauseText.share(cause.share)) of the change; \(CauseText.evidence(cause))"
                    + (cause.staticChange.map { "; " + TextSafety.display($0) } ?? ""))
        }
        if abs(explanation.unexplainedMs) >= 0.0005, !causes.isEmpty {
            out += wrap("  unexplained: \(Milliseconds.signed(explanation.unexplainedMs)) (not spread over the causes)")
        }
        for note in explanation.notes { out += wrap("  note: \(TextSafety.display(note))") }
        return out
    }

    /// Rows before main, to first output and in all, with the difference and the result.
    static func instructionsTable(_ instructions: InstructionComparison, width: Int) -> String {
        var table = TextTable(
            headers: ["instructions (callgrind, exact)", "base", "head", "Δ", "result"],
            alignments: [.left, .right, .right, .right, .left], maxWidth: width)
        for (index, row) in instructions.rows.enumerated() where row.base != nil || row.head != nil {
            table.add([
                row.title, grouped(row.base), grouped(row.head), row.change.map { signed(Double($0)) } ?? "-",
                index == 0 || (index == 1 && instructions.base.beforeMain == nil)
                    ? resultTitle(instructions.result) : "",
            ])
        }
        return table.render() + "  (threshold ±\(String(format1: instructions.thresholdPercent)) % of base)\n"
    }

    /// "3,122,938"; "-" for `nil`.
    static func grouped(_ value: UInt64?) -> String {
        value.map(CountText.grouped) ?? "-"
    }

    /// "40 per side in 20 blocks (shuffled ABBA/BAAB) after 1 warm-up each, 3.2 s; stopped: decided".
    public static func runsLine(_ report: CompareReport) -> String {
        let runs = report.runs
        let stop: String
        switch runs.stop {
        case .decided: stop = "every gated interval decided"
        case .maxRuns: stop = "run limit reached"
        case .maxTime: stop = "time limit reached"
        case .failed: stop = "a run failed"
        }
        return
            "\(runs.perSide) per side in \(runs.blocks.count) block\(runs.blocks.count == 1 ? "" : "s") (shuffled ABBA/BAAB) "
            + "after \(runs.warmup) warm-up\(runs.warmup == 1 ? "" : "s") each, \(String(format1: runs.seconds)) s; \(stop)"
    }

    public static func resultTitle(_ result: QuantityResult) -> String {
        switch result {
        case .regression: return "regression"
        case .improvement: return "improvement"
        case .noChange: return "no change"
        case .undecided: return "undecided"
        }
    }

    /// "+0.204", "−0.107", "±0.000": a difference in ms without the unit.
    static func signedNumber(_ value: Double) -> String {
        String(Milliseconds.signed(value).dropLast(3))
    }

    static func buildID(_ side: CompareReport.Side) -> String {
        side.buildID.map { " (build-id \($0.prefix(16)))" } ?? ""
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : formatFixed(value, digits: 1)
    }

    static func signed(_ value: Double) -> String {
        CountText.signed(value)
    }
}
