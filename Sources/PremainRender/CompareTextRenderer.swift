import PremainModel

/// Renders a `CompareReport` for a terminal: the verdict line with its reasons, the noise
/// warnings, what was spent, then every time and count with its paired interval. Lines wrap
/// at `width` columns (100 by default; `TextFit.unlimited` wraps nothing); nothing is cut.
public enum CompareTextRenderer {
    public static func render(_ report: CompareReport, width: Int = 100) -> String {
        let wrap = { (line: String) in MeasureTextRenderer.wrap(line, width: width) + "\n" }
        var out = "verdict: \(report.verdict.title)\n"
        for reason in report.reasons { out += wrap("  - \(TextSafety.display(reason))") }
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
        var times = TextTable(headers: ["time (medians)", "base", "head", "Δ", "\(level) % interval", "threshold", "result"],
                              alignments: [.left, .right, .right, .right, .right, .right, .left], maxWidth: width)
        for time in report.times {
            times.add([time.quantity.title + (time.gated ? " *" : ""), Milliseconds.text(time.base.medianMs),
                       Milliseconds.text(time.head.medianMs), time.difference.map { Milliseconds.signed($0.medianMs) } ?? "-",
                       time.difference.map { "\(signedNumber($0.lowMs)) … \(signedNumber($0.highMs))" } ?? "-",
                       "±" + Milliseconds.text(time.thresholdMs), resultTitle(time.result)])
        }
        out += "\n" + times.render()
        out += "  (* gates the verdict)\n"
        if !report.counts.isEmpty {
            var counts = TextTable(headers: ["count (medians)", "base", "head", "Δ", "\(level) % interval", "result"],
                                   alignments: [.left, .right, .right, .right, .right, .left], maxWidth: width)
            for count in report.counts {
                counts.add([count.quantity.title, number(count.base.median), number(count.head.median),
                            count.difference.map { signed($0.median) } ?? "-",
                            count.difference.map { "\(signed($0.low)) … \(signed($0.high))" } ?? "-",
                            resultTitle(count.result)])
            }
            out += "\n" + counts.render()
        }
        if let instructions = report.instructions {
            out += "\n" + instructionsTable(instructions, width: width)
            for function in instructions.functions {
                out += wrap("  changed: \(TextSafety.display(function.name)) (\(TextSafety.display(function.object))) "
                    + "\(grouped(function.base)) -> \(grouped(function.head)), \(signed(Double(function.change)))")
            }
        }
        out += "\n" + ConditionsTextRenderer.render(report.conditions)
        return out
    }

    /// Rows before main, to first output and in all, with the difference and the result.
    static func instructionsTable(_ instructions: InstructionComparison, width: Int) -> String {
        var table = TextTable(headers: ["instructions (callgrind, exact)", "base", "head", "Δ", "result"],
                              alignments: [.left, .right, .right, .right, .left], maxWidth: width)
        for (index, row) in instructions.rows.enumerated() where row.base != nil || row.head != nil {
            table.add([row.title, grouped(row.base), grouped(row.head), row.change.map { signed(Double($0)) } ?? "-",
                       index == 0 || (index == 1 && instructions.base.beforeMain == nil) ? resultTitle(instructions.result) : ""])
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
        return "\(runs.perSide) per side in \(runs.blocks.count) block\(runs.blocks.count == 1 ? "" : "s") (shuffled ABBA/BAAB) "
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
