import PremainModel

/// The page every HTML report shares: one self-contained file, inline CSS and SVG only (no
/// script, no font, no image or style from anywhere else), readable printed or offline.
enum HTMLPage {
    static let style = """
        :root{--fg:#1d2430;--muted:#5b6472;--line:#d5dae1;--bg:#fff;--panel:#f6f8fa;--bad:#c62828;--good:#2e7d32;--warn:#b26a00;--accent:#1f5fbf}
        *{box-sizing:border-box}
        body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
        h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
        .sub{color:var(--muted);margin:0 0 12px;word-break:break-all}
        .verdict{padding:12px 16px;border-radius:6px;font-size:18px;font-weight:600;margin:12px 0;border:1px solid var(--line)}
        .verdict.regression{background:#fdecea;color:var(--bad)}.verdict.improvement,.verdict.no-change{background:#e8f5e9;color:var(--good)}
        .verdict.inconclusive{background:#fff4e5;color:var(--warn)}
        .verdict ul{font-size:14px;font-weight:400;margin:6px 0 0;padding-left:20px;color:var(--fg)}
        table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
        th{background:var(--panel)}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
        svg{display:block;max-width:100%;height:auto;font:12px system-ui,"DejaVu Sans",sans-serif}
        svg text{fill:var(--fg)}svg .muted{fill:var(--muted)}svg .axis{stroke:var(--line)}
        .chart{border:1px solid var(--line);border-radius:6px;padding:8px;background:var(--bg);overflow-x:auto}
        .legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px;border-radius:2px}
        details{margin:2px 0}summary{cursor:pointer}
        .tree ul{list-style:none;margin:0;padding-left:18px;border-left:1px dotted var(--line)}.tree li{margin:1px 0}
        .cost{color:var(--muted);font-variant-numeric:tabular-nums}.bar{display:inline-block;height:9px;background:var(--accent);border-radius:2px;margin-right:6px;vertical-align:0}
        .note{color:var(--muted);font-size:13px}
        """

    /// A complete document: `title` (escaped here) and `body` (already HTML).
    static func document(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
        <meta name="generator" content="premain \(HTMLEscape.text(premainVersion))">
        <title>\(HTMLEscape.text(title))</title>
        <style>
        \(style)
        </style></head>
        <body>
        \(body)
        </body></html>

        """
    }

    /// A table from rows of already-escaped cells; `numeric` marks right-aligned columns.
    static func table(_ header: [String], _ rows: [[String]], numeric: Set<Int> = []) -> String {
        var out = "<table><tr>" + header.map { "<th>\($0)</th>" }.joined() + "</tr>\n"
        for row in rows {
            out +=
                "<tr>"
                + row.enumerated().map { index, cell in
                    numeric.contains(index) ? "<td class=\"n\">\(cell)</td>" : "<td>\(cell)</td>"
                }.joined() + "</tr>\n"
        }
        return out + "</table>\n"
    }
}
