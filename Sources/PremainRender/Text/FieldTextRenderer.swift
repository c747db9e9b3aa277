import PremainModel

/// `premain field report` as text: the answer first (each row's p50 and p90 of time to main with
/// its 95 % interval and n), then each row's details, then the measurement contract.
public enum FieldTextRenderer {
    public static func render(_ report: FieldReport, width: Int = 100) -> String {
        var out = "premain field: \(FieldFormat.headline(report))\n\n"
        if report.rows.isEmpty {
            out += "  No launch recorded. Set the recorder up with 'premain field env'.\n\n"
        } else {
            var lead = TextTable(
                headers: FieldFormat.leadHeader, alignments: [.left, .left, .left, .left, .right, .right, .right],
                kinds: [.path], maxWidth: width)
            for row in report.rows { lead.add(FieldFormat.leadRow(row)) }
            out +=
                lead.render() + "  Intervals: 95 %, distribution-free (order statistics); … where too few launches.\n\n"
            for row in report.rows {
                out += FieldFormat.title(row) + "\n"
                var table = TextTable(
                    headers: FieldFormat.detailHeader,
                    alignments: [.left] + Array(repeating: .right, count: FieldFormat.detailHeader.count - 1),
                    maxWidth: TextFit.unlimited)
                for quantity in FieldFormat.quantities(row) {
                    table.add(FieldFormat.detailRow(quantity.name, quantity.distribution, missing: quantity.missing))
                }
                out += table.render()
                for note in FieldFormat.notes(row) { out += "  Note: \(note)\n" }
                out += "\n"
            }
        }
        out += "Measurement contract\n"
        for (label, text) in FieldFormat.contract(report.contract) {
            let pad = String(repeating: " ", count: max(1, 13 - label.count))
            out +=
                "  \(label)\(pad)"
                + TextWrap.lines(text.split(separator: " "), width: max(40, width - 15))
                .joined(separator: "\n" + String(repeating: " ", count: 15)) + "\n"
        }
        return out
    }
}
