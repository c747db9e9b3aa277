import PremainModel

/// The launch waterfall of `measure`: each run's phases as a thin bar (the spread across runs),
/// then one row per object with initializers (median start and duration as a bar, each run's end
/// as a dot, min–max as a whisker), with the milestones' medians as vertical lines and their
/// min–max as a band. When the initializers take a small part of the launch, a second chart
/// zooms on them.
enum LaunchWaterfall {
    static let labelWidth = 300.0
    static let valueWidth = 90.0

    /// The charts for `measurement` (one, or the whole launch and the zoom on the initializers).
    static func charts(_ measurement: LaunchMeasurement, width: Double = 1200) -> [String] {
        let runs = TraceEventRenderer.runs(of: measurement).map(\.1)
        let objects = measurement.objects
            .filter {
                ($0.initializers != nil && $0.initializersStart != nil) || $0.mapping != nil || $0.relocation != nil
            }
            .sorted { firstMs($0) < firstMs($1) }
        let milestones = Milestone.allCases.compactMap { milestone in
            measurement.milestones[milestone].map { (milestone.title, $0) }
        }
        let end =
            ([
                measurement.milestones[.exit]?.maxMs, measurement.milestones[.firstOutput]?.maxMs,
                measurement.milestones[.main]?.maxMs,
            ]
            .compactMap { $0 } + runs.map { LaunchPhases($0).end }).max() ?? 1
        var charts = [
            chart(
                runs: runs, objects: objects, milestones: milestones, startMs: 0, endMs: end * 1.02, width: width,
                title: "Whole launch")
        ]
        let starts = objects.compactMap { $0.initializersStart?.minMs }
        let ends = objects.compactMap { object in
            object.initializersStart.flatMap { start in object.initializers.map { start.medianMs + $0.maxMs } }
        }
        if let first = starts.min(), let last = ([measurement.milestones[.main]?.maxMs].compactMap { $0 } + ends).max(),
            last > first, (last - first) < 0.35 * end
        {
            let pad = (last - first) * 0.04
            charts.append(
                chart(
                    runs: runs, objects: objects, milestones: milestones, startMs: max(0, first - pad),
                    endMs: last + pad, width: width, title: "Zoom on the initializers"))
        }
        return charts
    }

    /// Where an object's first segment begins: its loading, else its relocation, else its initializers.
    static func firstMs(_ object: ObjectMeasurement) -> Double {
        if let mapped = object.mapped, let mapping = object.mapping { return mapped.medianMs - mapping.medianMs }
        return object.relocationStart?.medianMs ?? object.initializersStart?.medianMs ?? 0
    }

    /// The loading and relocation segments of an object's row (median start and duration).
    static func loaderSegments(_ object: ObjectMeasurement) -> [(
        title: String, startMs: Double, durationMs: Double, fill: String
    )] {
        var segments: [(String, Double, Double, String)] = []
        if let mapped = object.mapped, let mapping = object.mapping {
            segments.append(("loading", mapped.medianMs - mapping.medianMs, mapping.medianMs, ChartColors.loading))
        }
        if let start = object.relocationStart, let relocation = object.relocation {
            segments.append(("relocation", start.medianMs, relocation.medianMs, ChartColors.relocation))
        }
        return segments
    }

    static func chart(
        runs: [LaunchSample], objects: [ObjectMeasurement], milestones: [(String, TimeSummary)],
        startMs: Double, endMs: Double, width: Double, title: String
    ) -> String {
        let runRow = 9.0
        let objectRow = 22.0
        let top = 58.0
        let shownRuns = Array(runs.prefix(30))
        let runsHeight = Double(shownRuns.count) * runRow + (shownRuns.isEmpty ? 0 : 14)
        let height = top + runsHeight + Double(objects.count) * objectRow + 56
        var canvas = SVGCanvas(width: width, height: height)
        let axis = TimeAxis(startMs: startMs, endMs: endMs, left: labelWidth, width: width - labelWidth - valueWidth)
        canvas.text(title, x: 8, y: 16, bold: true)
        axis.draw(on: &canvas, top: top - 8, bottom: height - 48)
        var y = top
        if !shownRuns.isEmpty {
            canvas.text("phases, one row per run", x: 8, y: y + 8, size: 11, muted: true)
            for (index, run) in shownRuns.enumerated() {
                for phase in LaunchPhases(run).phases where phase.endMs > startMs && phase.startMs < endMs {
                    canvas.rect(
                        x: axis.x(phase.startMs), y: y, width: axis.x(phase.endMs) - axis.x(phase.startMs),
                        height: runRow - 2,
                        fill: ChartColors.phases[phase.title] ?? "#999",
                        tooltip:
                            "run \(index + 1): \(phase.title) \(Milliseconds.text(phase.startMs)) → \(Milliseconds.text(phase.endMs))"
                    )
                }
                y += runRow
            }
            y += 14
        }
        for object in objects {
            let name = ObjectName.fileName(object.path)
            canvas.text(name, x: 8, y: y + 15, limit: 40)
            for segment in loaderSegments(object)
            where segment.startMs + segment.durationMs >= startMs && segment.startMs <= endMs {
                let from = axis.x(max(startMs, segment.startMs))
                let to = axis.x(min(endMs, segment.startMs + segment.durationMs))
                canvas.rect(
                    x: from, y: y + 6, width: max(1.5, to - from), height: 10, fill: segment.fill,
                    tooltip:
                        "\(object.path)\n\(segment.title) \(Milliseconds.text(segment.durationMs)) median, from \(Milliseconds.text(segment.startMs))"
                )
            }
            guard let start = object.initializersStart, let duration = object.initializers else {
                let total = (object.mapping?.medianMs ?? 0) + (object.relocation?.medianMs ?? 0)
                canvas.text(Milliseconds.text(total), x: width - 6, y: y + 15, anchor: "end", size: 11)
                y += objectRow
                continue
            }
            let color = ChartColors.initializers
            let from = axis.x(start.medianMs)
            let to = axis.x(start.medianMs + duration.medianMs)
            // The spread of its duration over the runs, drawn from the median start.
            let ends = duration.samplesMs.map { start.medianMs + $0 }
            if duration.maxMs > duration.minMs {
                canvas.line(
                    x1: axis.x(start.medianMs + duration.minMs), y1: y + 11,
                    x2: axis.x(start.medianMs + duration.maxMs), y2: y + 11,
                    stroke: "#555", width: 1)
            }
            canvas.rect(
                x: from, y: y + 4, width: max(2, to - from), height: 14, fill: color,
                tooltip:
                    "\(object.path)\ninitializers \(Milliseconds.text(duration.medianMs)) median (\(Milliseconds.text(duration.minMs)) … \(Milliseconds.text(duration.maxMs))), from \(Milliseconds.text(start.medianMs))"
            )
            for end in ends where end >= startMs && end <= endMs {
                canvas.circle(x: axis.x(end), y: y + 11, radius: 2, fill: "#222", opacity: 0.45)
            }
            canvas.text(Milliseconds.text(duration.medianMs), x: width - 6, y: y + 15, anchor: "end", size: 11)
            y += objectRow
        }
        let shown = milestones.filter {
            $0.1.medianMs >= startMs && $0.1.medianMs <= endMs && $0.0 != "loader start"
                && $0.0 != "program initializers"
        }
        var lineEnds: [Double] = [-.infinity, -.infinity, -.infinity]
        for (name, summary) in shown {
            let x = axis.x(summary.medianMs)
            // min–max over the runs as a whisker above the plot.
            if summary.maxMs > summary.minMs {
                canvas.line(
                    x1: axis.x(summary.minMs), y1: top - 4, x2: axis.x(summary.maxMs), y2: top - 4,
                    stroke: ChartColors.milestone, width: 3)
            }
            let text = "\(name) \(Milliseconds.text(summary.medianMs))"
            let textWidth = Double(text.count) * 6.3
            let anchor = x + textWidth > width - 4 ? "end" : "start"
            let left = anchor == "end" ? x - 3 - textWidth : x + 3
            let line = lineEnds.firstIndex { $0 < left - 4 } ?? 2
            lineEnds[line] = left + textWidth
            canvas.line(
                x1: x, y1: top - 4, x2: x, y2: height - 44 + Double(line) * 13, stroke: ChartColors.milestone,
                width: 1.2, dashed: true)
            canvas.text(
                text, x: anchor == "end" ? x - 3 : x + 3, y: height - 34 + Double(line) * 13, anchor: anchor, size: 11,
                fill: ChartColors.milestone)
        }
        return canvas.rendered(label: "\(title): launch waterfall")
    }

    /// The colour key for the phases.
    static var legend: String { legend(runDots: true) }

    static func legend(runDots: Bool) -> String {
        var items = ["exec and loader start", "map and relocate", "initializers", "main"].map { title in
            "<span><i style=\"background:\(ChartColors.phases[title] ?? "#999")\"></i>\(HTMLEscape.text(title))</span>"
        }
        items.append(
            "<span><i style=\"background:\(ChartColors.loading)\"></i>an object's loading (search, open, map)</span>")
        items.append("<span><i style=\"background:\(ChartColors.relocation)\"></i>its relocation</span>")
        return "<p class=\"legend\">" + items.joined()
            + "<span><i style=\"background:\(ChartColors.milestone)\"></i>milestone (median; thick line on top: min–max over the runs)</span>\(runDots ? "<span>● each run's initializer time of an object (from its median start)</span>" : "")</p>\n"
    }
}
