import PremainModel

/// Renders a `TraceReport` as the text hot list. Pure: report in, text out.
public enum TraceTextRenderer {
    /// Functions under this inclusive median are summarized in one line unless `all`.
    public static let smallMs = 0.01

    /// The bias line, then per measurement: command, conditions, outcomes, milestones, the hot
    /// list (inclusive median, p90, max; SELF is the exclusive median) (toolchain initializers under `smallMs` summarized unless `all`), what was not timed
    /// and notes.
    /// Lines fit `width` columns (100 by default; `TextFit.unlimited` shortens nothing): the
    /// FUNCTION column loses what `TextFit` lets a Swift name lose, then wraps.
    public static func render(_ report: TraceReport, all: Bool = false, width: Int = 100) -> String {
        var out = ""
        let bias = report.bias
        out += "bias: \(ms(bias.pairMs)) per breakpoint pair (\(bias.source.rawValue)"
        out += bias.calibrationCalls > 0 ? ", median of \(bias.calibrationCalls) calls of an empty function)" : ")"
        if let cost = bias.costPerCallMs { out += "; each traced call costs the target about \(ms(cost))" }
        out = fitted(out, width)
        for measurement in report.measurements {
            out += "\n" + render(measurement, all: all, width: width)
        }
        return out
    }

    static func render(_ m: TraceMeasurement, all: Bool, width: Int) -> String {
        var out = "command: \(TextSafety.display(m.command.joined(separator: " ")))\n"
        out += "runs: \(m.runs) (+\(m.warmup) warm-up), until \(m.until), max \(m.maxCalls) calls per function\n"
        out += ConditionsTextRenderer.render(m.conditions, measurer: "tracer")
        var outcomes: [String: Int] = [:]
        for outcome in m.outcomes { outcomes[TextSafety.display(outcome.description), default: 0] += 1 }
        out +=
            "outcomes: " + outcomes.sorted { $0.key < $1.key }.map { "\($0.value)× \($0.key)" }.joined(separator: ", ")
            + "\n"
        for name in ["main", "firstOutput", "exit"]
            + m.milestones.keys.filter({ !["main", "firstOutput", "exit"].contains($0) }).sorted()
        {
            guard let timing = m.milestones[name] else { continue }
            out +=
                "milestone \(TextSafety.display(name)): median \(ms(timing.medianMs)), p90 \(ms(timing.p90Ms)), max \(ms(timing.maxMs))\n"
        }
        let shown = m.functions.filter {
            all || $0.inclusive.medianMs >= smallMs || $0.kind != .staticInitializer || $0.unfinishedCalls > 0
        }
        out = out.split(separator: "\n").map { fitted(String($0), width) }.joined() + "\n"
        let wide = table(shown, width: width, stacked: false)
        let fits = width == TextFit.unlimited || wide.split(separator: "\n").allSatisfy { $0.count <= width }
        out += fits ? wide : table(shown, width: width, stacked: true)
        let hidden = m.functions.count - shown.count
        if hidden > 0 {
            out += fitted(
                "(\(hidden) toolchain/static initializers under \(ms(smallMs)) not shown; --all shows them)", width)
        }
        for failure in m.failures ?? [] { out += fitted("FAILED: \(TextSafety.display(failure))", width) }
        if !m.untimed.isEmpty {
            out += "\nnot timed:\n"
            for u in m.untimed {
                out += fitted(
                    "  \(TextSafety.display(u.demangled ?? u.symbol)) [\(TextSafety.display(u.object))]: \(TextSafety.display(u.reason))",
                    width, indent: "    ")
            }
        }
        if !m.notes.isEmpty {
            out += "\nnotes:\n"
            for note in m.notes { out += fitted("  \(TextSafety.display(note))", width, indent: "    ") }
        }
        return out
    }

    /// `line` wrapped at `width` between words, later lines starting with `indent`; ends in a newline.
    /// (`lead` and two spaces when `nil`, `lead` being the line's own leading spaces).
    static func fitted(_ line: String, _ width: Int, indent: String? = nil) -> String {
        let lead = String(line.prefix { $0 == " " })
        let pieces = line.dropFirst(lead.count).split(separator: " ")
        return TextWrap.lines(pieces, width: width, first: lead, indent: indent ?? lead + "  ")
            .joined(separator: "\n") + "\n"
    }

    /// The hot list. FUNCTION last: demangled Swift names are long and would push the other
    /// columns away; `stacked` (when the table does not fit) puts each name, its kind, object
    /// and source on the lines under its row instead, the name shortened and broken to the width.
    static func table(_ shown: [TracedFunction], width: Int, stacked: Bool) -> String {
        let headers = ["MEDIAN", "P90", "MAX", "SELF", "CALLS", "KIND", "OBJECT", "SOURCE", "FUNCTION"]
        let columns = stacked ? 5 : 9
        var table = TextTable(
            headers: Array(headers.prefix(columns)),
            alignments: Array([.right, .right, .right, .right, .right, .left, .left, .left, .left].prefix(columns)),
            kinds: Array([.plain, .plain, .plain, .plain, .plain, .plain, .path, .plain, .symbol].prefix(columns)),
            indent: 0, maxWidth: width)
        // Names that two rows share (two `_GLOBAL__sub_I_X.cpp` of one object, `ProcessInfo`
        // against `_ProcessInfo`) carry their address.
        var nameCounts: [String: Int] = [:]
        func key(_ f: TracedFunction) -> String {
            "\(f.image ?? 1)|" + ObjectName.fileName(f.object) + "|" + (f.demangled ?? f.symbol)
        }
        for f in shown { nameCounts[key(f), default: 0] += 1 }
        for f in shown {
            var name = SwiftName.display(symbol: f.symbol, demangled: f.demangled)
            let shared = (nameCounts[key(f)] ?? 0) > 1
            if f.ifuncResolver == true { name += " (IFUNC resolver)" }
            if let caller = f.inlinedInto { name += " (inlined into \(caller))" }
            if shared, let address = f.address { name += " @\(address)" }
            if let image = f.image { name += " (image \(image))" }
            let timed = !f.inclusive.samplesMs.isEmpty
            let row = [
                timed ? ms(f.inclusive.medianMs) : "did not return", timed ? ms(f.inclusive.p90Ms) : "-",
                timed ? ms(f.inclusive.maxMs) : "-", f.exclusive.map { ms($0.medianMs) } ?? "-", f.callsText,
                f.kind.title,
                ObjectName.fileName(f.object),
                f.source?.shortText ?? "-", name,
            ]
            if stacked {
                let place = f.kind.title + " in " + row[6] + (f.source.map { " (\($0.shortText))" } ?? "")
                let lines =
                    TextFit.lines(name, width: max(12, width - 4), kind: .symbol).map { "    " + $0 }
                    + TextWrap.lines(place.split(separator: " "), width: width, first: "    ", indent: "      ")
                table.add(Array(row.prefix(columns)), below: lines)
            } else {
                table.add(row)
            }
        }
        return table.render()
    }

    static func ms(_ value: Double) -> String { "\(Milliseconds.number(value)) ms" }
}
