import PremainModel

/// A field report as the histograms Prometheus and OpenTelemetry take (`premain field export`):
/// per row (executable × version × scenario × temperature) the launch-to-main, loader-to-main
/// and launch-to-mark histograms in seconds over `FieldBuckets`' fixed layout, the counts
/// exactly the report's (so `histogram_quantile` reads what `field report` read), and the
/// report's exclusions as gauges. Pure: a value in, a value out.
public enum FieldExportBuilder {
    public static let launchToMain = "premain_launch_to_main_seconds"
    public static let loaderToMain = "premain_loader_to_main_seconds"
    public static let launchToMark = "premain_launch_to_mark_seconds"
    public static let excluded = "premain_field_excluded_records"

    public static func export(_ report: FieldReport) -> FieldExport {
        var histograms: [ExportHistogram] = []
        for row in report.rows {
            var labels = [
                ExportLabel("executable", row.executable), ExportLabel("version", row.buildId ?? ""),
                ExportLabel("scenario", row.scenario ?? ""), ExportLabel("temperature", row.temperature.rawValue),
            ]
            // The declared launch's name, as measure, compare and pr name the row (issue 35).
            if let launch = row.launch { labels.insert(ExportLabel("launch", launch), at: 3) }
            if let toMain = row.timeToMain {
                histograms.append(
                    histogram(
                        launchToMain, "Launch (birth, PREMAIN_T0 or the schedstat estimate) to main", labels, toMain))
            }
            histograms.append(
                histogram(loaderToMain, "The loader's start (la_version) to main, exact", labels, row.loaderToMain))
            for mark in row.marks {
                histograms.append(
                    histogram(
                        launchToMark, "Launch (birth) to the program's mark", labels + [ExportLabel("mark", mark.name)],
                        mark.distribution))
            }
        }
        // A family's series together: the textfile writes one HELP and TYPE per family.
        let order = [launchToMain, loaderToMain, launchToMark]
        histograms.sort { (order.firstIndex(of: $0.name) ?? 0) < (order.firstIndex(of: $1.name) ?? 0) }
        let values = report.contract.exclusions.map { exclusion in
            ExportValue(
                name: excluded, help: "Records the field report left out, by reason",
                labels: [ExportLabel("reason", exclusion.reason)], value: Double(exclusion.count))
        }
        return FieldExport(histograms: histograms, values: values)
    }

    /// One distribution's buckets as they are (no re-bucketing): index `i` of `FieldBuckets`.
    static func histogram(_ name: String, _ help: String, _ labels: [ExportLabel], _ distribution: FieldDistribution)
        -> ExportHistogram
    {
        var counts = [UInt64](repeating: 0, count: FieldBuckets.count)
        for bucket in distribution.buckets where (0..<FieldBuckets.count).contains(bucket.index) && bucket.count > 0 {
            counts[bucket.index] += UInt64(bucket.count)
        }
        return ExportHistogram(
            name: name, help: help, labels: labels, upperBounds: FieldBuckets.boundsSeconds, bucketCounts: counts,
            sum: distribution.sumMs / 1000)
    }
}
