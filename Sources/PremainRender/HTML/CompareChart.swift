import PremainModel

/// `compare` on one time axis: each milestone for base and head (median bar, every run a dot),
/// each side's phases run by run, and each object's initializers for both sides.
enum CompareChart {
    static let labelWidth = 230.0

    /// The times of both sides: a pair of bars per quantity, from birth to the median.
    static func milestones(_ report: CompareReport, width: Double = 1200) -> String {
        let rows = report.times
        let end = (rows.flatMap { [$0.base.maxMs, $0.head.maxMs] }.max() ?? 1) * 1.04
        let top = 44.0
        let pair = 40.0
        let height = top + Double(rows.count) * pair + 16
        var canvas = SVGCanvas(width: width, height: height)
        let axis = TimeAxis(endMs: end, left: labelWidth, width: width - labelWidth - 360)
        canvas.text("Milestones and CPU time, base and head on one axis", x: 8, y: 16, bold: true)
        axis.draw(on: &canvas, top: top - 8, bottom: height - 10)
        var y = top
        for row in rows {
            canvas.text(row.quantity.title + (row.gated ? " (gated)" : ""), x: 8, y: y + 20, bold: row.gated)
            for (index, (side, summary, color)) in [
                ("base", row.base, ChartColors.base), ("head", row.head, ChartColors.head),
            ].enumerated() {
                let barY = y + 4 + Double(index) * 16
                canvas.rect(
                    x: axis.x(0), y: barY, width: axis.length(summary.medianMs), height: 13, fill: color,
                    tooltip:
                        "\(side) \(row.quantity.title): median \(Milliseconds.text(summary.medianMs)), \(Milliseconds.text(summary.minMs)) … \(Milliseconds.text(summary.maxMs)) over \(summary.samplesMs.count) runs"
                )
                for sample in summary.samplesMs {
                    canvas.circle(x: axis.x(sample), y: barY + 6.5, radius: 1.8, fill: "#222", opacity: 0.35)
                }
                canvas.text(
                    "\(side) \(Milliseconds.text(summary.medianMs))", x: axis.left + axis.width + 14, y: barY + 11,
                    size: 11,
                    fill: color == ChartColors.head ? "#9a5312" : "#3d5f91")
            }
            if let difference = row.difference {
                canvas.text(
                    "\(Milliseconds.signed(difference.medianMs)) [\(Milliseconds.signed(difference.lowMs)) … \(Milliseconds.signed(difference.highMs))]",
                    x: width - 8, y: y + 20, anchor: "end", size: 11,
                    fill: row.result == .regression ? "#c62828" : row.result == .improvement ? "#2e7d32" : nil)
            }
            y += pair
        }
        return canvas.rendered(label: "compare: milestones of base and head")
    }

    /// Each side's launches (phases, run by run) and each object's initializers (median over
    /// the side's runs) for both sides; `nil` when the report kept no launches.
    static func waterfall(_ report: CompareReport, width: Double = 1200) -> String? {
        let base = report.base.samples ?? []
        let head = report.head.samples ?? []
        guard !base.isEmpty || !head.isEmpty else { return nil }
        let shownBase = Array(base.prefix(12))
        let shownHead = Array(head.prefix(12))
        let objects = objectMedians(base: base, head: head)
        let end =
            ((base + head).map { LaunchPhases($0).end }.sorted().dropLast(max(0, (base.count + head.count) / 20)).last
                ?? 1) * 1.04
        let runRow = 8.0
        let objectRow = 30.0
        let top = 44.0
        let height =
            top + Double(shownBase.count + shownHead.count) * runRow + 40 + Double(objects.count) * objectRow + 10
        var canvas = SVGCanvas(width: width, height: height)
        let axis = TimeAxis(endMs: end, left: labelWidth, width: width - labelWidth - 110)
        canvas.text(
            "Launches of base and head (phases run by run, then each object's initializers, medians)", x: 8, y: 16,
            bold: true)
        axis.draw(on: &canvas, top: top - 8, bottom: height - 6)
        var y = top
        for (side, runs) in [("base", shownBase), ("head", shownHead)] {
            canvas.text(
                "\(side): \(runs.count) runs", x: 8, y: y + Double(runs.count) * runRow / 2 + 4, size: 11, muted: true)
            for run in runs {
                for phase in LaunchPhases(run).phases {
                    canvas.rect(
                        x: axis.x(phase.startMs), y: y, width: axis.x(phase.endMs) - axis.x(phase.startMs),
                        height: runRow - 1.5,
                        fill: ChartColors.phases[phase.title] ?? "#999",
                        tooltip:
                            "\(side): \(phase.title) \(Milliseconds.text(phase.startMs)) → \(Milliseconds.text(phase.endMs))"
                    )
                }
                y += runRow
            }
            y += 20
        }
        for object in objects {
            canvas.text(object.name, x: 8, y: y + 18, limit: 34)
            for (index, (side, span, color)) in [
                ("base", object.base, ChartColors.base), ("head", object.head, ChartColors.head),
            ].enumerated() {
                guard let span else { continue }
                let barY = y + 2 + Double(index) * 13
                canvas.rect(
                    x: axis.x(span.startMs), y: barY, width: max(2, axis.length(span.durationMs)), height: 11,
                    fill: color,
                    tooltip:
                        "\(side) \(object.name): \(Milliseconds.text(span.durationMs)) from \(Milliseconds.text(span.startMs)) (medians)"
                )
            }
            let change = (object.head?.durationMs ?? 0) - (object.base?.durationMs ?? 0)
            canvas.text(
                "\(Milliseconds.text(object.head?.durationMs ?? 0)) (\(Milliseconds.signed(change)))", x: width - 8,
                y: y + 18,
                anchor: "end", size: 11)
            y += objectRow
        }
        return canvas.rendered(label: "compare: launches of base and head")
    }

    struct Span {
        var startMs: Double
        var durationMs: Double
    }

    struct ObjectRow {
        var name: String
        var base: Span?
        var head: Span?
    }

    /// Per object (by file name, so the two builds' paths match): the median start and
    /// duration of its initializers over each side's runs, in the base's call order.
    static func objectMedians(base: [LaunchSample], head: [LaunchSample]) -> [ObjectRow] {
        func medians(_ samples: [LaunchSample]) -> (order: [String], spans: [String: Span]) {
            var order: [String] = []
            var starts: [String: [Double]] = [:]
            var durations: [String: [Double]] = [:]
            for sample in samples {
                for call in sample.loader?.initializers ?? [] {
                    let name = ObjectName.fileName(call.path)
                    if starts[name] == nil { order.append(name) }
                    starts[name, default: []].append(call.startMs)
                    durations[name, default: []].append(call.durationMs ?? 0)
                }
            }
            var spans: [String: Span] = [:]
            for name in order {
                spans[name] = Span(
                    startMs: SampleStatistics.median(starts[name] ?? []) ?? 0,
                    durationMs: SampleStatistics.median(durations[name] ?? []) ?? 0)
            }
            return (order, spans)
        }
        let before = medians(base)
        let after = medians(head)
        var names = before.order
        for name in after.order where before.spans[name] == nil { names.append(name) }
        return names.map { ObjectRow(name: $0, base: before.spans[$0], head: after.spans[$0]) }
    }
}
