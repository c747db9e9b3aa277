import PremainModel

/// `--format html`: one self-contained page per report (inline SVG and CSS, no script, no
/// reference outside the file). Pure: report values in, text out; every string that comes
/// from a binary, a report or the command line goes through `HTMLEscape`.
public enum HTMLReportRenderer {
    /// `premain history show --format html`: a chart per metric with its steps, and a table.
    public static func render(_ report: HistoryReport) -> String {
        var body =
            "<h1>premain history</h1>\n<p class=\"sub\">\(Plural.count(report.reports, "report")) in \(HTMLEscape.text(report.database)), \(Plural.count(report.series.count, "metric"))</p>\n"
        if report.series.isEmpty { body += "<p>No metric recorded yet.</p>\n" }
        var rows: [[String]] = []
        for series in report.series {
            rows.append([
                "<code>\(HTMLEscape.text(series.metric))</code>",
                HTMLEscape.text(HistoryFormat.sparkline(series.points.map(\.value))),
                "\(series.points.count)",
                series.points.last.map { HTMLEscape.text(HistoryFormat.value($0.value, unit: series.unit)) } ?? "-",
                series.steps.isEmpty
                    ? "none"
                    : series.steps.map { HTMLEscape.text(HistoryFormat.stepText($0, unit: series.unit)) }.joined(
                        separator: "<br>"),
            ])
        }
        if !rows.isEmpty {
            body += HTMLPage.table(["metric", "trend", "commits", "last", "step changes"], rows, numeric: [2, 3])
        }
        for series in report.series {
            body +=
                "<h2>\(HTMLEscape.text(series.metric))</h2>\n<div class=\"chart\">\(HistoryChart.svg(series))</div>\n"
        }
        return HTMLPage.document(title: "premain history", body: body)
    }
}

extension HTMLReportRenderer {
    /// `measure --format html`: the waterfall of each measured command, its phases and figures.
    public static func render(_ report: MeasureReport) -> String {
        var body = "<h1>premain measure</h1>\n"
        for measurement in report.measurements {
            body +=
                "<p class=\"sub\">\(HTMLEscape.text(measurement.command.joined(separator: " "))): \(measurement.runs) runs after \(measurement.warmup) warm-up, \(HTMLEscape.text(measurement.conditions.date))</p>\n"
            if let breakdown = measurement.breakdown {
                let rows = breakdown.rows.map { row in
                    [
                        HTMLEscape.text(BreakdownText.label(row, end: breakdown.end)),
                        row.objects.map(String.init) ?? "",
                        row.relocations.map(String.init) ?? "", Milliseconds.text(row.time.medianMs),
                        Milliseconds.text(row.time.p90Ms), BreakdownText.percent(row.share),
                        HTMLEscape.text(BreakdownText.split(row) ?? ""),
                    ]
                }
                body +=
                    "<h2>Where the time goes</h2>\n<p class=\"sub\">\(HTMLEscape.text(BreakdownText.heading(breakdown)))</p>\n"
                body += HTMLPage.table(
                    ["phase", "objects", "relocations", "median", "p90", "share", "split"], rows,
                    numeric: [1, 2, 3, 4, 5])
                let note = BreakdownText.footnote(breakdown)
                if !note.isEmpty { body += "<p class=\"note\">\(HTMLEscape.text(note))</p>\n" }
            }
            body += "<h2>Launch waterfall</h2>\n" + LaunchWaterfall.legend
            body += LaunchWaterfall.charts(measurement).map { "<div class=\"chart\">\($0)</div>\n" }.joined()
            let rows = Milestone.allCases.compactMap { milestone -> [String]? in
                guard let summary = measurement.milestones[milestone] else { return nil }
                return [
                    HTMLEscape.text(milestone.title), Milliseconds.text(summary.medianMs),
                    Milliseconds.text(summary.p90Ms),
                    Milliseconds.text(summary.minMs), Milliseconds.text(summary.maxMs),
                ]
            }
            body +=
                "<h2>Milestones</h2>\n"
                + HTMLPage.table(["milestone", "median", "p90", "min", "max"], rows, numeric: [1, 2, 3, 4])
            let objects = measurement.objects.filter { $0.initializers != nil }
                .sorted { ($0.initializers?.medianMs ?? 0) > ($1.initializers?.medianMs ?? 0) }
                .map { object in
                    [
                        HTMLEscape.text(object.path), HTMLEscape.text(object.role.rawValue),
                        object.initializers.map { Milliseconds.text($0.medianMs) } ?? "-",
                        object.initializers.map { Milliseconds.text($0.maxMs) } ?? "-",
                    ]
                }
            if !objects.isEmpty {
                body +=
                    "<h2>Initializers by object</h2>\n"
                    + HTMLPage.table(["object", "role", "median", "max"], objects, numeric: [2, 3])
            }
            let loaderRows = BreakdownText.costliest(measurement.objects).map { object in
                [
                    HTMLEscape.text(object.path), HTMLEscape.text(object.group?.rawValue ?? ""),
                    object.facts.map { String($0.relocations) } ?? "",
                    object.mapping.map { Milliseconds.text($0.medianMs) } ?? "kernel",
                    object.relocation.map { Milliseconds.text($0.medianMs) } ?? "-",
                    object.initializers.map { Milliseconds.text($0.medianMs) } ?? "-",
                    Milliseconds.text(object.loaderCostMs),
                ]
            }
            if !loaderRows.isEmpty {
                body +=
                    "<h2>Loader work by object</h2>\n"
                    + HTMLPage.table(
                        ["object", "group", "relocations", "loading", "relocation", "initializers", "total"],
                        loaderRows,
                        numeric: [2, 3, 4, 5, 6])
            }
            if !measurement.warnings.isEmpty {
                body +=
                    "<h2>Warnings</h2>\n<ul>"
                    + measurement.warnings.map {
                        "<li>\(HTMLEscape.text($0.message)); \(HTMLEscape.text($0.advice))</li>"
                    }.joined() + "</ul>\n"
            }
        }
        return HTMLPage.document(title: "premain measure", body: body)
    }

    /// `trace --format html`: the flame chart of the median run and the hot list.
    public static func render(_ report: TraceReport, top: Int = 40) -> String {
        var body = "<h1>premain trace</h1>\n"
        for measurement in report.measurements {
            body +=
                "<p class=\"sub\">\(HTMLEscape.text(measurement.command.joined(separator: " "))): \(measurement.runs) runs until \(HTMLEscape.text(measurement.until.description)), tracer bias \(Milliseconds.text(report.bias.pairMs)) per call removed</p>\n"
            let charts = FlameChart.charts(measurement)
            body += "<h2>Flame chart of the start-up path</h2>\n"
            if charts.isEmpty {
                body +=
                    "<p class=\"note\">No call timeline in this report (run trace with --format html or --export-trace to keep one).</p>\n"
            } else {
                body += FlameChart.legend + charts.map { "<div class=\"chart\">\($0)</div>\n" }.joined()
            }
            if let graph = FlameGraph.svg(measurement) {
                body += "<h2>Flame graph of the traced time</h2>\n<div class=\"chart\">\(graph)</div>\n"
            }
            let rows = measurement.functions.prefix(top).map { function in
                [
                    HTMLEscape.text(function.demangled ?? function.symbol), HTMLEscape.text(function.kind.title),
                    HTMLEscape.text(function.callsText),
                    Milliseconds.text(function.inclusive.medianMs),
                    function.exclusive.map { Milliseconds.text($0.medianMs) } ?? "-",
                    function.source.map { HTMLEscape.text($0.shortText) } ?? "",
                    HTMLEscape.text(ObjectName.fileName(function.object)),
                ]
            }
            body +=
                "<h2>Slowest functions (inclusive median)</h2>\n"
                + HTMLPage.table(
                    ["function", "kind", "calls", "inclusive", "exclusive", "source", "object"], rows,
                    numeric: [2, 3, 4])
            if measurement.functions.count > top {
                body += "<p class=\"note\">…and \(measurement.functions.count - top) more in the JSON report.</p>\n"
            }
            if !measurement.notes.isEmpty {
                body +=
                    "<h2>Notes</h2>\n<ul>" + measurement.notes.map { "<li>\(HTMLEscape.text($0))</li>" }.joined()
                    + "</ul>\n"
            }
        }
        return HTMLPage.document(title: "premain trace", body: body)
    }

    /// `compare --format html`: the verdict on top, both sides on one axis, the figures.
    public static func render(_ report: CompareReport) -> String {
        var body =
            "<h1>premain compare</h1>\n<p class=\"sub\">base \(HTMLEscape.text(report.base.label)) → head \(HTMLEscape.text(report.head.label)), \(report.runs.perSide) runs each, \(Milliseconds.number(report.runs.seconds, decimals: 1)) s</p>\n"
        let lead = [CauseText.decidingChange(report), CauseText.claimed(report).first.map { CauseText.lead($0) }]
            .compactMap { $0 }
        body += verdictBanner(
            report.verdict.title,
            cssClass: report.verdict.rawValue == "noChange" ? "no-change" : report.verdict.rawValue,
            reasons: lead + report.reasons)
        if let explanation = report.explanation {
            let claimed =
                !CauseText.claimed(report).isEmpty || report.verdict == .regression || report.verdict == .improvement
            body +=
                "<h2>\(claimed ? "Why" : "What moved")</h2>\n<p class=\"sub\">\(HTMLEscape.text(explanation.quantity.shortTitle)) "
                + "\(Milliseconds.signed(explanation.changeMs)); \(HTMLEscape.text(CauseText.explained(explanation)))</p>\n"
            let rows = (report.causes ?? []).map { cause in
                [
                    HTMLEscape.text(cause.title), HTMLEscape.text(cause.description), HTMLEscape.text(cause.objectName),
                    HTMLEscape.text(CauseText.source(cause) ?? "-"),
                    cause.base.map { Milliseconds.text($0.medianMs) } ?? "-",
                    cause.head.map { Milliseconds.text($0.medianMs) } ?? "-",
                    "\(Milliseconds.signed(cause.difference.medianMs)) [\(HTMLEscape.text(CauseText.interval(cause.difference, level: report.settings.confidence)))]",
                    CauseText.share(cause.share),
                ]
            }
            if !rows.isEmpty {
                body += HTMLPage.table(
                    ["cause", "kind", "object", "source", "base", "head", "difference [interval]", "share"], rows,
                    numeric: [4, 5, 6, 7])
            }
            if !explanation.notes.isEmpty {
                body += "<ul>" + explanation.notes.map { "<li>\(HTMLEscape.text($0))</li>" }.joined() + "</ul>\n"
            }
        }
        body += "<div class=\"chart\">\(CompareChart.milestones(report))</div>\n"
        if let waterfall = CompareChart.waterfall(report) {
            body +=
                LaunchWaterfall.legend(runDots: false)
                + "<p class=\"legend\"><span><i style=\"background:\(ChartColors.base)\"></i>base</span><span><i style=\"background:\(ChartColors.head)\"></i>head</span></p>\n"
                + "<div class=\"chart\">\(waterfall)</div>\n"
        }
        let rows = report.times.map { row in
            [
                HTMLEscape.text(row.quantity.title) + (row.gated ? " (gated)" : ""),
                Milliseconds.text(row.base.medianMs), Milliseconds.text(row.head.medianMs),
                row.difference.map {
                    "\(Milliseconds.signed($0.medianMs)) [\(Milliseconds.signed($0.lowMs)) … \(Milliseconds.signed($0.highMs))]"
                } ?? "-",
                Milliseconds.text(row.thresholdMs), HTMLEscape.text(row.result.rawValue),
            ]
        }
        body +=
            "<h2>Times</h2>\n"
            + HTMLPage.table(
                ["quantity", "base median", "head median", "difference [interval]", "threshold", "result"], rows,
                numeric: [1, 2, 3, 4])
        if !report.warnings.isEmpty {
            body +=
                "<h2>Warnings</h2>\n<ul>"
                + report.warnings.map { "<li>\(HTMLEscape.text($0.message)); \(HTMLEscape.text($0.advice))</li>" }
                .joined() + "</ul>\n"
        }
        return HTMLPage.document(title: "premain compare: \(report.verdict.title)", body: body)
    }

    /// `diff --format html`: the verdict on top, both sides' timelines on one axis.
    public static func render(_ report: DiffReport) -> String {
        var body =
            "<h1>premain diff</h1>\n<p class=\"sub\">base \(HTMLEscape.text(report.base.label)) → head \(HTMLEscape.text(report.head.label))</p>\n"
        body += verdictBanner(
            report.verdict.status.rawValue, cssClass: report.verdict.status == .pass ? "no-change" : "regression",
            reasons: report.verdict.reasons)
        if !report.base.timeline.isEmpty || !report.head.timeline.isEmpty {
            body += "<div class=\"chart\">\(timelines(base: report.base.timeline, head: report.head.timeline))</div>\n"
        }
        let measured = report.measured.map { delta in
            [
                HTMLEscape.text(delta.subject), delta.base.map { Milliseconds.text($0.medianMs) } ?? "-",
                delta.head.map { Milliseconds.text($0.medianMs) } ?? "-",
                delta.result.deltaMs.map { Milliseconds.signed($0) } ?? "-",
                HTMLEscape.text(delta.result.change.rawValue),
            ]
        }
        if !measured.isEmpty {
            body +=
                "<h2>Measured</h2>\n"
                + HTMLPage.table(["quantity", "base", "head", "change", "result"], measured, numeric: [1, 2, 3])
        }
        let objects = report.objects.filter { $0.status != .unchanged }.map { object in
            [
                HTMLEscape.text(object.name), HTMLEscape.text(object.status.rawValue),
                CountText.signed(Double(object.relocations.first { $0.name == "total" }?.delta ?? 0)),
                CountText.signed(Double(object.initializers.delta)), CountText.signed(Double(object.exports.delta)),
                CountText.signed(Double(object.fileSize.delta)),
            ]
        }
        if !objects.isEmpty {
            body +=
                "<h2>Objects that changed</h2>\n"
                + HTMLPage.table(
                    ["object", "status", "relocations", "initializers", "exports", "file size (bytes)"], objects,
                    numeric: [2, 3, 4, 5])
        }
        let findings =
            report.findings.new.map {
                ["new", HTMLEscape.text($0.rule), HTMLEscape.text($0.severity.rawValue), HTMLEscape.text($0.message)]
            }
            + report.findings.fixed.map {
                ["fixed", HTMLEscape.text($0.rule), HTMLEscape.text($0.severity.rawValue), HTMLEscape.text($0.message)]
            }
        if !findings.isEmpty {
            body += "<h2>Findings</h2>\n" + HTMLPage.table(["", "rule", "severity", "what"], findings)
        }
        let counts = report.closures.map {
            [
                HTMLEscape.text($0.name), $0.base.map(String.init) ?? "-", $0.head.map(String.init) ?? "-",
                CountText.signed(Double($0.delta)),
            ]
        }
        if !counts.isEmpty {
            body +=
                "<h2>Closures</h2>\n"
                + HTMLPage.table(["count", "base", "head", "change"], counts, numeric: [1, 2, 3])
        }
        return HTMLPage.document(title: "premain diff", body: body)
    }

    /// `audit --format html`: per file its figures and its load closure as a tree with costs.
    public static func render(_ report: AuditReport) -> String {
        var body = "<h1>premain audit</h1>\n<p class=\"sub\">\(Plural.count(report.binaries.count, "file"))</p>\n"
        for binary in report.binaries {
            body += "<h2>\(HTMLEscape.text(binary.path))</h2>\n"
            body += HTMLPage.table(
                ["dependencies", "relocations", "initializers (own)", "exported", "imported"],
                [
                    [
                        "\(binary.needed.count)", CountText.grouped(UInt64(max(0, binary.relocations.total))),
                        "\(binary.initializers.total) (\(binary.initializers.own))",
                        CountText.grouped(UInt64(max(0, binary.symbols.exported))),
                        CountText.grouped(UInt64(max(0, binary.symbols.imported))),
                    ]
                ], numeric: [0, 1, 2, 3, 4])
            if let closure = binary.closure {
                body += ClosureTree.html(program: binary.path, programCost: closure.program, closure: closure)
            }
        }
        for error in report.errors {
            body += "<p><b>\(HTMLEscape.text(error.path))</b>: \(HTMLEscape.text(error.message))</p>\n"
        }
        return HTMLPage.document(title: "premain audit", body: body)
    }

    static func verdictBanner(_ title: String, cssClass: String, reasons: [String]) -> String {
        "<div class=\"verdict \(cssClass)\">Verdict: \(HTMLEscape.text(title))<ul>"
            + reasons.map { "<li>\(HTMLEscape.text($0))</li>" }.joined() + "</ul></div>\n"
    }

    /// Two sides' timeline spans (medians) on one axis, base above head.
    static func timelines(base: [DiffReport.TimelineSpan], head: [DiffReport.TimelineSpan], width: Double = 1200)
        -> String
    {
        let labels = (base + head).map(\.label).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let end = ((base + head).map(\.endMs).max() ?? 1) * 1.04
        let top = 44.0
        let row = 30.0
        var canvas = SVGCanvas(width: width, height: top + Double(labels.count) * row + 12)
        let axis = TimeAxis(endMs: end, left: 230, width: width - 240)
        canvas.text("Start-up timeline, base and head on one axis (medians)", x: 8, y: 16, bold: true)
        axis.draw(on: &canvas, top: top - 8, bottom: canvas.height - 6)
        for (index, label) in labels.enumerated() {
            let y = top + Double(index) * row
            canvas.text(label, x: 8, y: y + 18, limit: 34)
            for (offset, (spans, color, side)) in [(base, ChartColors.base, "base"), (head, ChartColors.head, "head")]
                .enumerated()
            {
                guard let span = spans.first(where: { $0.label == label }) else { continue }
                canvas.rect(
                    x: axis.x(span.startMs), y: y + 2 + Double(offset) * 13,
                    width: max(2, axis.x(span.endMs) - axis.x(span.startMs)),
                    height: 11, fill: color,
                    tooltip: "\(side) \(label): \(Milliseconds.text(span.startMs)) → \(Milliseconds.text(span.endMs))")
            }
        }
        return canvas.rendered(label: "diff: start-up timelines")
    }
}
