import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

/// The histograms of time to main on `FieldBuckets`, one panel per temperature of one executable
/// × version × scenario (cold and warm apart, on one logarithmic time axis), with the p50 and
/// p90 marked. Inline SVG, nothing from outside the page.
enum FieldHistogram {
    static let colors: [FieldTemperature: String] = [.cold: "#1f5fbf", .mixed: "#8a63d2", .warm: "#e07b00"]

    /// One SVG with a panel per row of `rows` (one executable × version × scenario); `""` when
    /// none has a time to main.
    static func svg(_ rows: [FieldRow]) -> String {
        let panels = rows.compactMap { row in row.timeToMain.map { (row.temperature, $0) } }
            .sorted { $0.0.rawValue < $1.0.rawValue }
        let indices = panels.flatMap { $0.1.buckets.map(\.index) }
        guard let first = indices.min(), let last = indices.max() else { return "" }
        let low = max(0, first - 2)
        let high = min(FieldBuckets.count, last + 3)
        let left = 70.0
        let plotWidth = 640.0
        let panelHeight = 110.0
        let gap = 38.0
        var canvas = SVGCanvas(width: left + plotWidth + 20, height: Double(panels.count) * (panelHeight + gap) + 30)
        let step = plotWidth / Double(high - low)
        func x(_ index: Double) -> Double { left + (index - Double(low)) * step }
        /// The fractional bucket position of `ms`.
        func position(_ ms: Double) -> Double {
            ms <= 0 ? Double(low) : 10 * log2(ms * 1e6 / FieldBuckets.firstBoundNs) + 1
        }
        for (number, (temperature, distribution)) in panels.enumerated() {
            let top = Double(number) * (panelHeight + gap) + 16
            let bottom = top + panelHeight
            let color = colors[temperature] ?? "#1f5fbf"
            let largest = Double(distribution.buckets.map(\.count).max() ?? 1)
            canvas.text(
                "\(temperature.rawValue): \(distribution.samples) launches", x: left, y: top - 4, bold: true)
            canvas.line(x1: left, y1: bottom, x2: left + plotWidth, y2: bottom, stroke: "#d5dae1", cssClass: "axis")
            for bucket in distribution.buckets {
                let height = Double(bucket.count) / largest * (panelHeight - 14)
                let upper = FieldBuckets.upperBoundSeconds(bucket.index) * 1e3
                let lower = bucket.index == 0 ? 0 : FieldBuckets.upperBoundSeconds(bucket.index - 1) * 1e3
                canvas.rect(
                    x: x(Double(bucket.index)), y: bottom - height, width: max(1, step - 1), height: height,
                    fill: color,
                    tooltip:
                        "\(bucket.count) launches in (\(Milliseconds.text(lower)), \(upper.isFinite ? Milliseconds.text(upper) : "+Inf")]"
                )
            }
            for (line, percentile) in [FieldPercentile.p50, .p90].enumerated() {
                guard let value = distribution[percentile]?.valueMs else { continue }
                let at = x(min(max(position(value), Double(low)), Double(high)))
                canvas.line(x1: at, y1: top + 4, x2: at, y2: bottom, stroke: "#1d2430", dashed: true)
                canvas.text(
                    "\(percentile.rawValue) \(Milliseconds.text(value))", x: at + 3, y: top + 12 + Double(line) * 13,
                    size: 11)
            }
            for decade in -2...5 {  // 10 µs … 100 s, at 1, 2 and 5 of each
                for (step, factor) in [1.0, 2.0, 5.0].enumerated() {
                    let ms = pow(10, Double(decade)) * factor
                    let at = position(ms)
                    guard at >= Double(low), at <= Double(high) else { continue }
                    canvas.line(x1: x(at), y1: bottom, x2: x(at), y2: bottom + (step == 0 ? 5 : 3), stroke: "#5b6472")
                    canvas.text(
                        tickLabel(ms), x: x(at), y: bottom + 16, anchor: "middle", size: step == 0 ? 11 : 10,
                        muted: true)
                }
            }
        }
        return canvas.rendered(label: "Histograms of time to main by temperature")
    }

    /// `10 µs`, `2 ms`, `500 ms`, `5 s`.
    static func tickLabel(_ ms: Double) -> String {
        if ms < 1 { return "\(Int((ms * 1000).rounded())) µs" }
        if ms < 1000 { return "\(Int(ms.rounded())) ms" }
        return "\(Int((ms / 1000).rounded())) s"
    }
}
