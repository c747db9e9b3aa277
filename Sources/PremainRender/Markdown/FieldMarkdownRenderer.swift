import PremainModel

/// `premain field report --format markdown`: the answer table first, then each row's details
/// (folded), then the measurement contract.
public enum FieldMarkdownRenderer {
    public static func render(_ report: FieldReport) -> String {
        var out = "## premain field\n\n\(MarkdownEscape.text(FieldFormat.headline(report)))\n\n"
        if report.rows.isEmpty {
            out += "No launch recorded. Set the recorder up with `premain field env`.\n\n"
        } else {
            out += table(FieldFormat.leadHeader, report.rows.map(FieldFormat.leadRow), codeColumns: [0, 1])
            out += "\nIntervals: 95 %, distribution-free (order statistics); … where too few launches.\n\n"
            out += "<details><summary>Every percentile, loader start to main and marks</summary>\n\n"
            for row in report.rows {
                out += "#### \(MarkdownEscape.text(FieldFormat.title(row)))\n\n"
                out += table(
                    FieldFormat.detailHeader,
                    FieldFormat.quantities(row).map {
                        FieldFormat.detailRow($0.name, $0.distribution, missing: $0.missing)
                    },
                    codeColumns: [])
                for note in FieldFormat.notes(row) { out += "\n- \(MarkdownEscape.text(note))" }
                out += "\n\n"
            }
            out += "</details>\n\n"
        }
        out += "### Measurement contract\n\n"
        out += table(["", ""], FieldFormat.contract(report.contract).map { [$0.0, $0.1] }, codeColumns: [])
        return out
    }

    static func table(_ header: [String], _ rows: [[String]], codeColumns: Set<Int>) -> String {
        var out = "| " + header.map { MarkdownEscape.text($0) }.joined(separator: " | ") + " |\n"
        out += "|" + header.map { _ in " --- |" }.joined() + "\n"
        for row in rows {
            out +=
                "| "
                + row.enumerated().map { index, cell in
                    codeColumns.contains(index) ? "`\(MarkdownEscape.code(cell))`" : MarkdownEscape.text(cell)
                }.joined(separator: " | ") + " |\n"
        }
        return out
    }
}
