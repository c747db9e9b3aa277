import PremainModel

/// `InstructionCounts` as text: the three counts, the objects' initializers, the heaviest
/// functions before main (their kinds are in the JSON), and the notes. Pure; fits `width`
/// columns (100 by default; names shortened as `TextFit` allows, never cut). Used by `measure`
/// and by any command that shows counts.
public enum InstructionsTextRenderer {
    /// Functions listed before "… N more"; the JSON report has them all.
    static let functionLimit = 12

    public static func render(_ counts: InstructionCounts, indent: String = "  ", width maxWidth: Int = 100) -> String {
        let runs =
            counts.runs == 1
            ? "1 run"
            : "\(counts.runs) runs, \(counts.differingRuns == 0 ? "all equal" : "\(counts.differingRuns) differing")"
        var out =
            "\(indent)instructions under callgrind (exact, repeatable; \(runs); exit status \(counts.exitStatus))\n"
        let rows: [(String, UInt64?)] = [
            ("before main", counts.beforeMain), ("to first output", counts.toFirstOutput),
            ("total", counts.total),
        ]
        let width = rows.map { grouped($0.1).count }.max() ?? 0
        for (name, value) in rows {
            let text = grouped(value)
            out += "\(indent)  \(name.padding(15)) \(String(repeating: " ", count: width - text.count))\(text)\n"
        }
        let margin = indent.count
        if !counts.objects.isEmpty {
            var table = TextTable(
                headers: ["initializers of", "instructions", "calls"],
                alignments: [.left, .right, .right], kinds: [.path], indent: margin, maxWidth: maxWidth)
            for object in counts.objects {
                table.add([object.object, grouped(object.instructions), "\(object.calls)"])
            }
            out += "\n" + table.render()
        }
        if !counts.functions.isEmpty {
            var table = TextTable(
                headers: ["functions before main", "object", "instructions", "calls"],
                alignments: [.left, .left, .right, .right], kinds: [.symbol, .path], indent: margin,
                maxWidth: maxWidth)
            for function in counts.functions.prefix(functionLimit) {
                table.add([
                    function.displayName, ObjectName.fileName(function.object), grouped(function.instructions),
                    "\(function.calls)",
                ])
            }
            out += "\n" + table.render()
            if counts.functions.count > functionLimit {
                out += "\(indent)  … \(counts.functions.count - functionLimit) more (--format json lists them all)\n"
            }
        }
        for note in counts.notes { out += "\(indent)note: \(TextSafety.display(note))\n" }
        return out
    }

    /// `3,121,066`; `-` for `nil`.
    public static func grouped(_ value: UInt64?) -> String {
        value.map(CountText.grouped) ?? "-"
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
