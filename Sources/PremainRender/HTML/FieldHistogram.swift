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
        let gap = 28.0
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
            for percentile in [FieldPercentile.p50, .p90] {
                guard let value = distribution[percentile]?.valueMs else { continue }
                let at = x(min(max(position(value), Double(low)), Double(high)))
                canvas.line(x1: at, y1: top + 4, x2: at, y2: bottom, stroke: "#1d2430", dashed: true)
                canvas.text(
                    "\(percentile.rawValue) \(Milliseconds.text(value))", x: at + 3, y: top + 12, size: 11)
            }
            for decade in -2...5 {  // 10 µs … 100 s
                let ms = pow(10, Double(decade))
                let at = position(ms) - 1
                guard at >= Double(low), at <= Double(high) else { continue }
                canvas.line(x1: x(at), y1: bottom, x2: x(at), y2: bottom + 4, stroke: "#5b6472")
                canvas.text(decadeLabel(decade), x: x(at), y: bottom + 16, anchor: "middle", size: 11, muted: true)
            }
        }
        return canvas.rendered(label: "Histograms of time to main by temperature")
    }

    static func decadeLabel(_ decade: Int) -> String {
        switch decade {
        case -2: return "10 µs"
        case -1: return "100 µs"
        case 0: return "1 ms"
        case 1: return "10 ms"
        case 2: return "100 ms"
        case 3: return "1 s"
        case 4: return "10 s"
        default: return "100 s"
        }
    }
}
