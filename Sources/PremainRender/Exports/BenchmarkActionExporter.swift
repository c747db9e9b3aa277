import PremainModel

/// github-action-benchmark's `customSmallerIsBetter` input: a JSON array of `{name, unit, value,
/// range, extra}`, as the action's custom tools take it. `name` is `benchmark: measure`;
/// `range` is `± x` (the larger distance from the value to its bounds: the form the action's
/// chart shows, as benchmark.js writes `±3.81%`), `extra` what the bounds are. Every premain
/// quantity is smaller-is-better. A head − base `.change` is left out: the action compares each
/// entry with its previous value by ratio, and a change near zero is no benchmark of its own
/// (issue 36, item 15).
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
            metrics.filter { !$0.measure.hasSuffix(".change") }.map { metric in
                Entry(
                    name: "\(metric.benchmark): \(metric.measure)", unit: metric.unit.rawValue, value: metric.value,
                    range: metric.lower.flatMap { lower in
                        metric.upper.map { upper in
                            "± " + OpenMetricsExporter.number(max(metric.value - lower, upper - metric.value, 0))
                        }
                    },
                    extra: metric.note)
            })
    }
}
