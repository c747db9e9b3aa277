import PremainModel

/// OpenMetrics text exposition (GitLab's metrics report, `metrics.txt`): one gauge family per
/// measure, `premain_<measure>_<unit>` (`premain_main_milliseconds`,
/// `premain_main_change_milliseconds`, `premain_count_minor_faults`), with a sample per
/// benchmark and statistic (`value`, `lower`, `upper`); ends with `# EOF`.
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
            if first.unit == .milliseconds { out += "# UNIT \(name) milliseconds\n" }
            out +=
                "# HELP \(name) " + escapeHelp("premain \(first.measure) (\(first.unit.rawValue)); \(first.note)")
                + "\n"
            for metric in members {
                let labels = "benchmark=\"\(escape(metric.benchmark))\""
                out += "\(name){\(labels),statistic=\"value\"} \(number(metric.value))\n"
                if let lower = metric.lower { out += "\(name){\(labels),statistic=\"lower\"} \(number(lower))\n" }
                if let upper = metric.upper { out += "\(name){\(labels),statistic=\"upper\"} \(number(upper))\n" }
            }
        }
        return out + "# EOF\n"
    }

    /// `premain_` + the measure in snake case (`firstOutput.change` → `first_output_change`) +
    /// the unit suffix OpenMetrics asks for (`_milliseconds`); only `[a-z0-9_]`.
    static func familyName(_ metric: BenchmarkMetric) -> String {
        var snake = ""
        for character in metric.measure {
            if character.isUppercase {
                snake += "_" + character.lowercased()
            } else if character.isLetter || character.isNumber, character.isASCII {
                snake.append(character)
            } else {
                snake += "_"
            }
        }
        let suffix =
            metric.unit == .milliseconds ? "_milliseconds" : metric.unit == .instructions ? "_instructions" : ""
        return "premain_" + snake + suffix
    }

    /// `1.25`, `3`: a finite value as the format writes it (`0` for one that is not finite,
    /// never in a report premain wrote).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value.rounded() == value && abs(value) < 1e15 { return String(Int64(value)) }
        return String((value * 1_000_000).rounded() / 1_000_000)
    }

    /// HELP text: backslash and line feed escaped.
    static func escapeHelp(_ text: String) -> String {
        escape(text, quotes: false)
    }

    /// A label value: backslash, double quote and line feed escaped, as the format requires.
    static func escape(_ text: String, quotes: Bool = true) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"" where quotes: out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
