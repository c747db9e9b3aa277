import PremainRender

/// `--export-bmf FILE`, `--export-benchmark-action FILE` and `--export-openmetrics FILE` of
/// measure, compare and pr: the measured figures for Bencher, github-action-benchmark and
/// GitLab's metrics report, written next to the report (one run may write all three).
enum BenchmarkExports {
    /// One option per format, named by it (`--export-bmf`).
    static let exports: [(format: BenchmarkExportFormat, option: Option<String?>)] = BenchmarkExportFormat.allCases.map
    { format in
        (
            format,
            Option<String?>(
                format.option, value: "file", kind: .path(.file), help: help(format) + OutputOptions.dashHelp)
        )
    }

    static let options: [any DeclaredOption] = exports.map(\.option)

    /// `--export-bmf <file>`: the one pr's usage line names.
    static var bmf: Option<String?> { exports[0].option }

    static func help(_ format: BenchmarkExportFormat) -> String {
        switch format {
        case .bmf: "Also write the measured figures in Bencher Metric Format (bencher run --adapter json)"
        case .benchmarkAction: "Also write them as github-action-benchmark's customSmallerIsBetter JSON"
        case .openMetrics: "Also write them as OpenMetrics text (GitLab's metrics report, metrics.txt)"
        }
    }

    /// Writes every export asked for; `false` after one `Error:` line for a file that cannot be
    /// written, `true` when all were written or none was asked for.
    static func write(_ arguments: ParsedArguments, _ metrics: () -> [BenchmarkMetric]) -> Bool {
        let asked = exports.compactMap { export in arguments[export.option].map { (export.format, $0) } }
        guard !asked.isEmpty else { return true }
        let values = metrics()
        var written = true
        for (format, path) in asked where !Console.emit(to: path, { () throws -> String in try format.render(values) })
        {
            written = false
        }
        return written
    }
}
