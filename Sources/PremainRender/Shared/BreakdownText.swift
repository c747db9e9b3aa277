import PremainModel

/// "Where the time goes" and the loader's work per object, as plain text and as Markdown rows,
/// shared by measure's text, Markdown and HTML renderers. Pure.
public enum BreakdownText {
    /// The row's name: "loading + relocation: language runtimes", "main → first output".
    public static func label(_ row: LaunchBreakdown.Row, end: Milestone) -> String {
        switch row.phase {
        case .program: return "main → \(end.title)"
        case .loading, .initializers:
            return row.phase.title + (row.group.map { ": " + $0.title } ?? "")
        case .exec, .loaderOther: return row.phase.title
        }
    }

    /// "mapping 0.30, relocation 0.74" for a loading row; `nil` for others.
    public static func split(_ row: LaunchBreakdown.Row) -> String? {
        guard let mapping = row.mapping, let relocation = row.relocation else { return nil }
        return
            "mapping \(Milliseconds.number(mapping.medianMs, decimals: 2)), relocation \(Milliseconds.number(relocation.medianMs, decimals: 2))"
    }

    /// "42 %".
    public static func percent(_ share: Double) -> String {
        Milliseconds.number(share * 100, decimals: 0) + " %"
    }

    /// The heading line: "where the time goes (medians of 10 runs, birth → first output 3.252 ms)".
    public static func heading(_ breakdown: LaunchBreakdown) -> String {
        "where the time goes (median of each row over \(breakdown.launch.samplesMs.count) runs; birth → \(breakdown.end.title) \(Milliseconds.text(breakdown.launch.medianMs)))"
    }

    /// What the per-object split accounts for and the stamps' resolution, in one sentence.
    public static func footnote(_ breakdown: LaunchBreakdown) -> String {
        var parts: [String] = []
        if let share = breakdown.loaderAccountedShare, let phase = breakdown.loaderPhase {
            parts.append(
                "each object's loading and relocation add up to \(percent(share)) of the loader phase (\(Milliseconds.text(phase.medianMs))); the rest is the loader's own work between them"
            )
        }
        if breakdown.loaderLines > 0 {
            parts.append(
                "\(breakdown.sameStampLines) of \(breakdown.loaderLines) loader lines reached premain in one read with the line before and share its stamp, so a step shorter than one read's wait shows as 0"
            )
        }
        return parts.joined(separator: "; ")
    }

    /// Objects with loader work, costliest (loading + relocation + initializers) first.
    public static func costliest(_ objects: [ObjectMeasurement]) -> [ObjectMeasurement] {
        objects.filter { $0.mapping != nil || $0.relocation != nil }
            .enumerated().sorted { lhs, rhs in
                lhs.element.loaderCostMs != rhs.element.loaderCostMs
                    ? lhs.element.loaderCostMs > rhs.element.loaderCostMs : lhs.offset < rhs.offset
            }.map(\.element)
    }

    /// The text tables: where the time goes, then the loader's work per object.
    static func render(_ m: LaunchMeasurement, width: Int) -> String {
        var out = ""
        if let breakdown = m.breakdown {
            var table = TextTable(
                headers: ["phase", "objects", "relocations", "median", "p90", "share"],
                alignments: [.left, .right, .right, .right, .right, .right], maxWidth: width)
            for row in breakdown.rows {
                table.add([
                    label(row, end: breakdown.end), row.objects.map(String.init) ?? "",
                    row.relocations.map(String.init) ?? "", Milliseconds.number(row.time.medianMs),
                    Milliseconds.number(row.time.p90Ms), percent(row.share),
                ])
            }
            out += "\n  " + heading(breakdown) + "\n" + table.render()
            let note = footnote(breakdown)
            if !note.isEmpty { out += MeasureTextRenderer.wrap("    (" + note + ")", width: width) + "\n" }
        }
        let objects = costliest(m.objects)
        if !objects.isEmpty {
            var table = TextTable(
                headers: ["loader work of", "group", "relocations", "loading", "relocation", "init", "total"],
                alignments: [.left, .left, .right, .right, .right, .right, .right],
                kinds: [.path], maxWidth: width == TextFit.unlimited ? width : width - 2)
            for object in objects {
                let name = object.role == .executable ? "\(object.path) (executable)" : object.path
                let relocations =
                    object.facts.map { facts in
                        "\(facts.relocations)" + (object.lazyBinding == false || facts.bindNow ? " now" : "")
                    } ?? ""
                table.add([
                    name, object.group?.rawValue ?? "", relocations,
                    object.mapping.map { Milliseconds.number($0.medianMs) } ?? "kernel",
                    object.relocation.map { Milliseconds.number($0.medianMs) } ?? "-",
                    object.initializers.map { Milliseconds.number($0.medianMs) } ?? "-",
                    Milliseconds.number(object.loaderCostMs),
                ])
            }
            out += "\n" + table.render()
            out += "    (medians; loading = search, open and mapping (the kernel maps the executable and the loader);\n"
            out +=
                "     relocation = its pass before main, \"now\" when bound eagerly; lazy PLT binding after main is not in it)\n"
        }
        return out
    }
}
