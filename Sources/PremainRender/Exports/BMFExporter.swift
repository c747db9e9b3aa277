import PremainModel

/// Bencher Metric Format (`bencher run --adapter json`): one object per benchmark, one per
/// measure inside it, `value` with `lower_value` and `upper_value` when the metric has bounds.
/// A measure is named with its unit (`main (ms)`), since Bencher keys measures by name.
enum BMFExporter: BenchmarkExporter {
    struct Entry: Encodable {
        var value: Double
        var lowerValue: Double?
        var upperValue: Double?

        enum CodingKeys: String, CodingKey {
            case value
            case lowerValue = "lower_value"
            case upperValue = "upper_value"
        }
    }

    static func render(_ metrics: [BenchmarkMetric]) throws -> String {
        var document: [String: [String: Entry]] = [:]
        for metric in metrics {
            document[metric.benchmark, default: [:]][measureName(metric)] =
                Entry(value: metric.value, lowerValue: metric.lower, upperValue: metric.upper)
        }
        return try JSONRenderer.render(document)
    }

    /// `main (ms)`, `count.minorFaults (count)`.
    static func measureName(_ metric: BenchmarkMetric) -> String {
        "\(metric.measure) (\(metric.unit.rawValue))"
    }
}
