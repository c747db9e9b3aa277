import PremainModel

/// `measure --format markdown` (a job summary or a comment): per command, where the time goes,
/// the milestones, and the objects with the most loader work. Names escaped with
/// `MarkdownEscape`. Pure.
public enum MeasureMarkdownRenderer {
    public static func render(_ report: MeasureReport, top: Int = 15) -> String {
        MatrixText.measureMarkdown(report)
            + report.measurements.map { render($0, top: top) }.joined(separator: "\n")
    }

    public static func render(_ m: LaunchMeasurement, top: Int = 15) -> String {
        let e = { (text: String) in MarkdownEscape.text(text, limit: 200) }
        let row = m.launch == nil ? "" : "\(e(m.rowLabel)): "
        var out = "## premain measure: \(row)\(MarkdownEscape.code(m.command.joined(separator: " ")))\n\n"
        out += "\(m.runs) runs after \(m.warmup) warm-up, \(m.cold ? "cold" : "warm"); status \(m.status.rawValue); "
        out +=
            "times in ms since process birth; \(MarkdownEscape.code(m.conditions.date)), \(m.conditions.onlineCPUs) CPUs, load \(m.conditions.loadAverage1m.map { Milliseconds.number($0, decimals: 2) } ?? "?")\n\n"
        for failure in m.failures { out += "> ❌ \(e(failure))\n\n" }
        if let breakdown = m.breakdown {
            // The labels, heading and footnote are premain's own words: no names in them to escape.
            out += "### Where the time goes\n\n\(BreakdownText.heading(breakdown))\n\n"
            out += "| phase | objects | relocations | median | p90 | share |\n|---|---:|---:|---:|---:|---:|\n"
            for row in breakdown.rows {
                out += "| \(BreakdownText.label(row, end: breakdown.end)) | \(row.objects.map(String.init) ?? "") | "
                out += "\(row.relocations.map(String.init) ?? "") | \(Milliseconds.number(row.time.medianMs)) | "
                out += "\(Milliseconds.number(row.time.p90Ms)) | \(BreakdownText.percent(row.share)) |\n"
            }
            let note = BreakdownText.footnote(breakdown)
            if !note.isEmpty { out += "\n<sub>\(note)</sub>\n" }
            out += "\n"
        }
        out += "### Milestones\n\n| milestone | median | p90 | min | max | runs |\n|---|---:|---:|---:|---:|---:|\n"
        for milestone in Milestone.allCases {
            guard let summary = m.milestones[milestone] else { continue }
            out +=
                "| \(milestone.title) | \(Milliseconds.number(summary.medianMs)) | \(Milliseconds.number(summary.p90Ms)) | "
            out +=
                "\(Milliseconds.number(summary.minMs)) | \(Milliseconds.number(summary.maxMs)) | \(summary.samplesMs.count) |\n"
        }
        let objects = BreakdownText.costliest(m.objects)
        if !objects.isEmpty {
            out +=
                "\n### Loader work by object\n\n| object | group | relocations | loading | relocation | initializers | total |\n"
            out += "|---|---|---:|---:|---:|---:|---:|\n"
            for object in objects.prefix(top) {
                out += "| \(MarkdownEscape.code(ObjectName.fileName(object.path))) | \(object.group?.rawValue ?? "") | "
                out += "\(object.facts.map { String($0.relocations) } ?? "") | "
                out += "\(object.mapping.map { Milliseconds.number($0.medianMs) } ?? "kernel") | "
                out += "\(object.relocation.map { Milliseconds.number($0.medianMs) } ?? "-") | "
                out +=
                    "\(object.initializers.map { Milliseconds.number($0.medianMs) } ?? "-") | \(Milliseconds.number(object.loaderCostMs)) |\n"
            }
            if objects.count > top { out += "| …and \(objects.count - top) more | | | | | | |\n" }
        }
        if !m.warnings.isEmpty {
            out += "\n<details><summary>\(m.warnings.count) warning\(m.warnings.count == 1 ? "" : "s")</summary>\n\n"
            for warning in m.warnings {
                out += "- \(e(warning.subject)): \(e(warning.message)); \(e(warning.advice))\n"
            }
            out += "\n</details>\n"
        }
        return out
    }
}
