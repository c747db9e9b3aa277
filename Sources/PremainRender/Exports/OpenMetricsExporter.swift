import PremainModel

/// OpenMetrics text exposition (GitLab's metrics report, `metrics.txt`): one gauge family per
/// measure, `premain_<measure>_<unit>` (`premain_main_seconds`, `premain_main_change_seconds`,
/// `premain_count_minor_faults`), with a sample per benchmark and statistic (`value`, `lower`,
/// `upper`); ends with `# EOF`. Times are in seconds, the base unit Prometheus asks for
/// (`promtool check metrics`), where every other output of premain says milliseconds.
enum OpenMetricsExporter: BenchmarkExporter {
    static func render(_ metrics: [BenchmarkMetric]) -> String {
        var families: [(String, BenchmarkMetric, [BenchmarkMetric])] = []
        for metric in metrics {
            let name = familyName(metric)
            if let index = families.firstIndex(where: { $0.0 == name }) {
                families[index].2.append(metric)
            } else {
                families.append((name, metric, [metric]))
            }
        }
        var out = ""
        for (name, first, members) in families {
            out += "# TYPE \(name) gauge\n"
            let seconds = first.unit == .milliseconds
            if seconds { out += "# UNIT \(name) seconds\n" }
            let unit = seconds ? "seconds" : first.unit.rawValue
            out += "# HELP \(name) " + escapeHelp("premain \(first.measure) (\(unit)); \(first.note)") + "\n"
            for metric in members {
                let labels = "benchmark=\"\(escape(metric.benchmark))\""
                let value = seconds ? Self.seconds : number
                out += "\(name){\(labels),statistic=\"value\"} \(value(metric.value))\n"
                if let lower = metric.lower { out += "\(name){\(labels),statistic=\"lower\"} \(value(lower))\n" }
                if let upper = metric.upper { out += "\(name){\(labels),statistic=\"upper\"} \(value(upper))\n" }
            }
        }
        return out + "# EOF\n"
    }

    /// `premain_` + the measure in snake case (`firstOutput.change` → `first_output_change`) +
    /// the unit suffix OpenMetrics asks for (`_seconds`); only `[a-z0-9_]`.
    static func familyName(_ metric: BenchmarkMetric) -> String {
        var snake = ""
        for scalar in metric.measure.unicodeScalars {
            switch scalar {
            case "A"..."Z": snake += "_" + String(scalar).lowercased()
            case "a"..."z", "0"..."9": snake.unicodeScalars.append(scalar)
            default: snake += "_"
            }
        }
        let suffix =
            metric.unit == .milliseconds ? "_seconds" : metric.unit == .instructions ? "_instructions" : ""
        return "premain_" + snake + suffix
    }

    /// `1.25`, `3`: a finite value as the format writes it (`0` for one that is not finite,
    /// never in a report premain wrote).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value.rounded() == value && abs(value) < 1e15 { return String(Int64(value)) }
        return String((value * 1_000_000).rounded() / 1_000_000)
    }

    /// `0.0215`, `1.5`: milliseconds `value` in seconds, to the nanosecond, in plain decimals
    /// (`0` for a value that is not finite or beyond ±9e9 s, never in a report premain wrote).
    static func seconds(_ milliseconds: Double) -> String {
        let nanoseconds = (milliseconds * 1_000_000).rounded()
        guard nanoseconds.isFinite, abs(nanoseconds) < 9e18 else { return "0" }
        let whole = Int64(nanoseconds)
        let magnitude = whole.magnitude
        var fraction = String(magnitude % 1_000_000_000)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (whole < 0 ? "-" : "") + String(magnitude / 1_000_000_000) + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// HELP text: backslash and line feed escaped.
    static func escapeHelp(_ text: String) -> String {
        escape(text, quotes: false)
    }

    /// A label value: backslash, double quote and line feed escaped, as the format requires;
    /// carriage return and every other control too (`TextSafety.display`: `\x0d`), as no parser
    /// takes one raw. Per Unicode scalar, never per character: `\r\n`, and a `"` or `\\`
    /// followed by a combining mark (U+0301), are one character each, yet parsers read bytes.
    static func escape(_ text: String, quotes: Bool = true) -> String {
        var out = ""
        for scalar in TextSafety.display(text).unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"" where quotes: out += "\\\""
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
