import PremainModel

/// One metric's series as an SVG line chart: a point per commit, the segments' medians between
/// steps as flat lines, each step marked at its first commit with the commit's name.
enum HistoryChart {
    static func svg(_ series: HistorySeries, width: Double = 900) -> String {
        let height = 220.0
        let left = 70.0
        let right = 20.0
        let top = 34.0
        let bottom = 44.0
        var canvas = SVGCanvas(width: width, height: height)
        let values = series.points.map(\.value)
        guard let low = values.min(), let high = values.max(), !values.isEmpty else {
            canvas.text("no points", x: left, y: top + 20, muted: true)
            return canvas.rendered(label: series.metric)
        }
        let pad = max((high - low) * 0.15, abs(high) * 0.01, 1e-9)
        let minimum = low - pad
        let maximum = high + pad
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ index: Int) -> Double {
            left + (values.count > 1 ? Double(index) / Double(values.count - 1) * plotWidth : plotWidth / 2)
        }
        func y(_ value: Double) -> Double { top + (1 - (value - minimum) / (maximum - minimum)) * plotHeight }
        for fraction in [0.0, 0.5, 1.0] {
            let value = minimum + (maximum - minimum) * fraction
            canvas.line(x1: left, y1: y(value), x2: width - right, y2: y(value), stroke: "#e3e7ec")
            canvas.text(
                HistoryFormat.value(value, unit: series.unit), x: left - 6, y: y(value) + 4, anchor: "end", size: 11,
                muted: true)
        }
        canvas.text(series.metric, x: left, y: 18, bold: true, limit: 90)
        canvas.polyline(values.indices.map { (x($0), y(values[$0])) }, stroke: "#5c8dd6")
        // Segment medians between steps.
        let bounds = [0] + series.steps.map(\.index) + [values.count]
        for (start, end) in zip(bounds, bounds.dropFirst()) where end > start {
            let median = SampleStatistics.median(Array(values[start..<end])) ?? 0
            canvas.line(
                x1: x(start), y1: y(median), x2: x(end - 1), y2: y(median), stroke: "#2e7d32", width: 2, dashed: true)
        }
        for (index, point) in series.points.enumerated() {
            canvas.circle(
                x: x(index), y: y(point.value), radius: 3, fill: "#1f5fbf",
                tooltip:
                    "\(HistoryFormat.commit(point.commit, report: point.report)): \(HistoryFormat.value(point.value, unit: series.unit))"
            )
        }
        for step in series.steps {
            let position = x(step.index)
            canvas.line(
                x1: position, y1: top, x2: position, y2: height - bottom, stroke: ChartColors.milestone, dashed: true)
            canvas.text(
                "\(HistoryFormat.shift(step.shift, unit: series.unit)) at \(HistoryFormat.commit(step.commit, report: step.report))",
                x: position + 4, y: top + 12, size: 11, fill: ChartColors.milestone, limit: 60)
        }
        let labelEvery = max(1, values.count / 10)
        for index in stride(from: 0, to: values.count, by: labelEvery) {
            let point = series.points[index]
            canvas.text(
                HistoryFormat.commit(point.commit, report: point.report), x: x(index), y: height - bottom + 16,
                anchor: "middle", size: 10, muted: true, limit: 12)
        }
        return canvas.rendered(label: "\(series.metric) across \(Plural.count(values.count, "commit"))")
    }
}
