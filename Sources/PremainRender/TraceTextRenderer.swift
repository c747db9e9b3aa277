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
        out += "\n"
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
        out += "\n"
        // FUNCTION last: demangled Swift names are long and would push the other columns away.
        var table = TextTable(
            headers: ["MEDIAN", "P90", "MAX", "SELF", "CALLS", "KIND", "OBJECT", "SOURCE", "FUNCTION"],
            alignments: [.right, .right, .right, .right, .right, .left, .left, .left, .left],
            kinds: [.plain, .plain, .plain, .plain, .plain, .plain, .path, .plain, .symbol],
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
            table.add([
                timed ? ms(f.inclusive.medianMs) : "did not return", timed ? ms(f.inclusive.p90Ms) : "-",
                timed ? ms(f.inclusive.maxMs) : "-", f.exclusive.map { ms($0.medianMs) } ?? "-", f.callsText,
                f.kind.title,
                ObjectName.fileName(f.object),
                f.source?.shortText ?? "-", name,
            ])
        }
        out += table.render()
        let hidden = m.functions.count - shown.count
        if hidden > 0 {
            out += "(\(hidden) toolchain/static initializers under \(ms(smallMs)) not shown; --all shows them)\n"
        }
        for failure in m.failures ?? [] { out += "FAILED: \(TextSafety.display(failure))\n" }
        if !m.untimed.isEmpty {
            out += "\nnot timed:\n"
            for u in m.untimed {
                out +=
                    "  \(TextSafety.display(u.demangled ?? u.symbol)) [\(TextSafety.display(u.object))]: \(TextSafety.display(u.reason))\n"
            }
        }
        if !m.notes.isEmpty {
            out += "\nnotes:\n"
            for note in m.notes { out += "  \(TextSafety.display(note))\n" }
        }
        return out
    }

    static func ms(_ value: Double) -> String { "\(Milliseconds.number(value)) ms" }
}
