import PremainModel

/// `premain field report --format html`: one self-contained page, the answer first (each row's
/// p50 and p90 of time to main with interval and n), the histograms (cold and warm apart), each
/// row's details, then the measurement contract.
public enum FieldHTMLRenderer {
    public static func render(_ report: FieldReport) -> String {
        var body = "<h1>premain field</h1>\n<p class=\"sub\">\(HTMLEscape.text(FieldFormat.headline(report)))</p>\n"
        if report.rows.isEmpty {
            body += "<p>No launch recorded. Set the recorder up with <code>premain field env</code>.</p>\n"
        } else {
            body += HTMLPage.table(
                FieldFormat.leadHeader.map(HTMLEscape.text),
                report.rows.map { FieldFormat.leadRow($0).map(HTMLEscape.text) }, numeric: [4, 5, 6])
            body +=
                "<p class=\"note\">Intervals: 95 %, distribution-free (order statistics); … where too few launches.</p>\n"
            body += "<h2>Histograms of time to main</h2>\n"
            var groups: [(key: String, rows: [FieldRow])] = []
            for row in report.rows {
                let key =
                    "\(row.executable)\(FieldFormat.scenarioSuffix(row)) (\(FieldFormat.version(row.buildId)))"
                if let index = groups.firstIndex(where: { $0.key == key }) {
                    groups[index].rows.append(row)
                } else {
                    groups.append((key, [row]))
                }
            }
            for group in groups {
                let chart = FieldHistogram.svg(group.rows)
                guard !chart.isEmpty else { continue }
                body += "<h3>\(HTMLEscape.text(group.key))</h3>\n<div class=\"chart\">\(chart)</div>\n"
            }
            body += "<h2>Details</h2>\n"
            for row in report.rows {
                body += "<h3>\(HTMLEscape.text(FieldFormat.title(row)))</h3>\n"
                body += HTMLPage.table(
                    FieldFormat.detailHeader.map(HTMLEscape.text),
                    FieldFormat.quantities(row).map {
                        FieldFormat.detailRow($0.name, $0.distribution, missing: $0.missing).map(HTMLEscape.text)
                    }, numeric: Set(1..<FieldFormat.detailHeader.count))
                let notes = FieldFormat.notes(row)
                if !notes.isEmpty {
                    body += "<p class=\"note\">" + notes.map(HTMLEscape.text).joined(separator: "<br>") + "</p>\n"
                }
            }
        }
        body += "<h2>Measurement contract</h2>\n"
        body += HTMLPage.table(
            ["", ""], FieldFormat.contract(report.contract).map { [HTMLEscape.text($0.0), HTMLEscape.text($0.1)] })
        return HTMLPage.document(title: "premain field", body: body)
    }
}
