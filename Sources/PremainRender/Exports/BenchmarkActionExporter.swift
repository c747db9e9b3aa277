import PremainModel

/// github-action-benchmark's `customSmallerIsBetter` input: a JSON array of `{name, unit, value,
/// range, extra}`. `name` is `benchmark: measure`; `range` is the bounds as text (`0.912 … 1.204`),
/// `extra` what they are. Every premain quantity is smaller-is-better.
enum BenchmarkActionExporter: BenchmarkExporter {
    struct Entry: Encodable {
        var name: String
        var unit: String
        var value: Double
        var range: String?
        var extra: String
    }

    static func render(_ metrics: [BenchmarkMetric]) throws -> String {
        try JSONRenderer.render(
            metrics.map { metric in
                Entry(
                    name: "\(metric.benchmark): \(metric.measure)", unit: metric.unit.rawValue, value: metric.value,
                    range: metric.lower.flatMap { lower in
                        metric.upper.map { "\(OpenMetricsExporter.number(lower)) … \(OpenMetricsExporter.number($0))" }
                    },
                    extra: metric.note)
            })
    }
}
