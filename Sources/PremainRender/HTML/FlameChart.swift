import PremainModel

/// The traced calls of one run as a flame chart of the start-up path: a lane per thread; in
/// each, a row of object blocks (consecutive outermost calls into one object) above the calls,
/// nested by depth; milestones as vertical lines. A slice is labelled when its name fits.
enum FlameChart {
    static let rowHeight = 18.0
    static let labelWidth = 150.0

    /// The run to draw: the one whose last milestone is the median over the runs (the first
    /// run when none has one); `nil` without timelines.
    static func medianRun(_ measurement: TraceMeasurement) -> TraceRunTimeline? {
        guard let timelines = measurement.timelines, !timelines.isEmpty else { return nil }
        func last(_ timeline: TraceRunTimeline) -> Double {
            timeline.milestones.values.max() ?? timeline.calls.map(\.endMs).max() ?? 0
        }
        let sorted = timelines.sorted { last($0) < last($1) }
        return sorted[(sorted.count - 1) / 2]
    }

    /// The whole window, and a zoom on the calls when they take a small part of it.
    static func charts(_ measurement: TraceMeasurement, width: Double = 1400) -> [String] {
        guard let run = medianRun(measurement), !run.calls.isEmpty else { return [] }
        let end = max(run.milestones.values.max() ?? 0, run.calls.map(\.endMs).max() ?? 0) * 1.02
        var charts = [
            chart(
                run, measurement, startMs: 0, endMs: end, width: width,
                title: "Run \(run.run + 1): \(run.calls.count) traced calls, birth to \(Milliseconds.text(end / 1.02))")
        ]
        let first = run.calls.map(\.startMs).min() ?? 0
        let last = run.calls.map(\.endMs).max() ?? end
        if last > first, last - first < 0.6 * end {
            let pad = (last - first) * 0.02
            charts.append(
                chart(
                    run, measurement, startMs: max(0, first - pad), endMs: last + pad, width: width,
                    title: "Zoom on the traced calls, \(Milliseconds.text(first)) → \(Milliseconds.text(last))"))
        }
        // Many calls: the libraries' initializers, before the program's own, get a chart of their own.
        let program = measurement.conditions.binaryPath
        if run.calls.count > 100, let own = run.calls.first(where: { $0.object == program && $0.depth == 0 })?.startMs,
            own > first, own - first < 0.4 * (last - first)
        {
            let pad = (own - first) * 0.02
            charts.append(
                chart(
                    run, measurement, startMs: max(0, first - pad), endMs: own + pad, width: width,
                    title:
                        "Zoom on the libraries' initializers, before \(ObjectName.fileName(program))'s own: \(Milliseconds.text(first)) → \(Milliseconds.text(own))"
                ))
        }
        return charts
    }

    struct Block {
        var object: String
        var startMs: Double
        var endMs: Double
        var calls: Int
        var totalMs: Double
    }

    /// Consecutive outermost calls of one thread into the same object, merged.
    static func blocks(_ calls: [TraceCallSlice]) -> [Block] {
        var blocks: [Block] = []
        for call in calls where call.depth == 0 {
            if var last = blocks.last, last.object == call.object {
                last.endMs = max(last.endMs, call.endMs)
                last.calls += 1
                last.totalMs += call.inclusiveMs
                blocks[blocks.count - 1] = last
            } else {
                blocks.append(
                    Block(
                        object: call.object, startMs: call.startMs, endMs: call.endMs, calls: 1,
                        totalMs: call.inclusiveMs))
            }
        }
        return blocks
    }

    static func chart(
        _ run: TraceRunTimeline, _ measurement: TraceMeasurement, startMs: Double, endMs: Double,
        width: Double, title: String
    ) -> String {
        let threads = Dictionary(grouping: run.calls, by: \.thread)
            .sorted { ($0.value.first?.startMs ?? 0) < ($1.value.first?.startMs ?? 0) }
        let top = 50.0
        let laneHeights = threads.map { Double(($0.value.map(\.depth).max() ?? 0) + 2) * rowHeight + 14 }
        let height = top + laneHeights.reduce(0, +) + 36
        var canvas = SVGCanvas(width: width, height: height)
        let axis = TimeAxis(startMs: startMs, endMs: endMs, left: labelWidth, width: width - labelWidth - 12)
        canvas.text(title, x: 8, y: 16, bold: true, limit: 160)
        axis.draw(on: &canvas, top: top - 8, bottom: height - 30)
        if let first = run.calls.map(\.startMs).min(), first > startMs, axis.x(first) - axis.x(startMs) > 220 {
            canvas.text(
                "exec, loading, relocation: no traced call", x: (axis.x(startMs) + axis.x(first)) / 2, y: top + 14,
                anchor: "middle", size: 11, muted: true)
        }
        var y = top
        for ((thread, calls), laneHeight) in zip(threads, laneHeights) {
            canvas.text("thread \(thread)", x: 8, y: y + 13, size: 11, muted: true)
            canvas.text("objects", x: 8, y: y + 13 + rowHeight, size: 10, muted: true)
            for block in blocks(calls) where block.endMs > startMs && block.startMs < endMs {
                let from = axis.x(block.startMs)
                let to = axis.x(block.endMs)
                let name = ObjectName.fileName(block.object)
                canvas.rect(
                    x: from, y: y, width: max(1, to - from), height: rowHeight - 2, fill: ChartColors.named(name),
                    opacity: 0.55,
                    tooltip: "\(block.object)\n\(block.calls) calls, \(Milliseconds.text(block.totalMs)) traced")
                label(name, from: from, to: to, y: y, on: &canvas)
            }
            for call in calls where call.endMs > startMs && call.startMs < endMs {
                let from = axis.x(call.startMs)
                let to = axis.x(call.endMs)
                let function = measurement.function(of: call)
                let name = function?.demangled ?? call.symbol
                let rowY = y + Double(call.depth + 1) * rowHeight
                var tooltip =
                    "\(name)\n\(call.object) 0x\(String(call.address, radix: 16))\n\(Milliseconds.text(call.inclusiveMs)) (tracer cost removed), from \(Milliseconds.text(call.startMs))"
                if let source = function?.source { tooltip += "\n\(source.description)" }
                canvas.rect(
                    x: from, y: rowY, width: max(0.8, to - from), height: rowHeight - 2,
                    fill: function.map { ChartColors.kind($0.kind) } ?? "#9aa5b1",
                    stroke: to - from > 3 ? "#ffffff" : nil,
                    tooltip: tooltip)
                label(shortName(name), from: from, to: to, y: rowY, on: &canvas)
            }
            y += laneHeight
        }
        let milestones = run.milestones.sorted { $0.value < $1.value }.filter {
            $0.value >= startMs && $0.value <= endMs
        }
        for (index, (name, ms)) in milestones.enumerated() {
            let x = axis.x(ms)
            canvas.line(
                x1: x, y1: top - 8, x2: x, y2: height - 30 + Double(index % 2) * 12, stroke: ChartColors.milestone,
                width: 1.2, dashed: true)
            let anchor = x > width - 160 ? "end" : "start"
            canvas.text(
                "\(TraceEventRenderer.milestoneTitle(name)) \(Milliseconds.text(ms))",
                x: anchor == "end" ? x - 3 : x + 3,
                y: height - 18 + Double(index % 2) * 12, anchor: anchor, size: 11, fill: ChartColors.milestone)
        }
        return canvas.rendered(label: "flame chart: \(title)")
    }

    /// A label inside a slice when at least four characters fit (about 6.2 px each at 11 px).
    static func label(_ text: String, from: Double, to: Double, y: Double, on canvas: inout SVGCanvas) {
        let fits = Int((to - from - 6) / 6.2)
        guard fits >= 4 else { return }
        canvas.text(text, x: from + 3, y: y + 12.5, size: 11, fill: "#111", limit: fits)
    }

    /// Shorter names for labels, so more of the name fits in a slice: a C++ translation unit's
    /// initializer by its file, "lazy NAME" for a Swift one-time initializer, "default arg …".
    static func shortName(_ name: String) -> String {
        var short = name
        if short.hasPrefix("_GLOBAL__sub_I_"), short.count > 15 { return String(short.dropFirst(15)) }
        for prefix in ["one-time initialization function for ", "default argument "] where short.hasPrefix(prefix) {
            short = (prefix.hasPrefix("one-time") ? "lazy " : "default arg ") + short.dropFirst(prefix.count)
        }
        return short
    }

    /// The colour key of the kinds.
    static var legend: String {
        let items = TracedFunctionKind.allCases.map { kind in
            "<span><i style=\"background:\(ChartColors.kind(kind))\"></i>\(HTMLEscape.text(kind.title))</span>"
        }
        return "<p class=\"legend\">" + items.joined()
            + "<span><i style=\"background:#bbb;opacity:.55\"></i>object block (consecutive calls into one object)</span></p>\n"
    }
}
