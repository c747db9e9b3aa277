import PremainModel

/// Renders a `CheckReport` as Markdown (for a job summary or a comment): verdict first,
/// then one table row per finding and the advice in a collapsible section. Names are
/// escaped with `MarkdownEscape`; the text stays under the limit. Pure.
public enum CheckMarkdownRenderer {
    public static let marker = "<!-- premain-check -->"

    public static func render(_ report: CheckReport, top: Int = 50, limit: Int = DiffMarkdownRenderer.defaultLimit)
        -> String
    {
        let failing = report.failing
        var head = marker + "\n## premain: start-up check\n\n"
        head +=
            failing.isEmpty
            ? "✅ **Passed**: \(Plural.count(report.findings.count, "finding")), none at or above \(report.failOn.rawValue)"
            : "❌ **Failed**: \(Plural.count(failing.count, "finding")) at or above \(report.failOn.rawValue)"
        var table = "| severity | rule | where | finding |\n|---|---|---|---|\n"
        for finding in report.findings.prefix(top) { table += "| " + DiffMarkdownRenderer.findingCells(finding) }
        if report.findings.count > top { table += "| …and \(report.findings.count - top) more | | | |\n" }
        var advice = "<details><summary>What to do</summary>\n\n"
        for finding in report.findings.prefix(top) {
            advice +=
                "- **\(MarkdownEscape.text(finding.rule))** \(MarkdownEscape.text(DiffMarkdownRenderer.subjectText(finding.subject))): \(MarkdownEscape.text(finding.advice, limit: 600))\n"
            for member in finding.grouped ?? [] { advice += "  - \(MarkdownEscape.text(member.line, limit: 400))\n" }
        }
        advice += "\n</details>"
        let required = report.findings.isEmpty ? [head] : [head, table.trimmingTrailingNewline]
        let footer =
            "---\n<sub>premain \(MarkdownEscape.text(report.tool.version)) · inputs: \(report.inputs.map { MarkdownEscape.text(ObjectName.fileName($0), limit: 80) }.joined(separator: ", "))</sub>"
        return DiffMarkdownRenderer.assemble(
            required: required, optional: report.findings.isEmpty ? [] : [advice],
            footer: footer, limit: limit)
    }
}
