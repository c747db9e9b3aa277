/// The Prometheus text exposition format 0.0.4, as node_exporter's textfile collector reads
/// it (`--collector.textfile.directory`, files named `*.prom`): `# HELP` and `# TYPE` once per
/// family, the family's series together, no sample timestamps (node_exporter refuses a file
/// that has one), base unit seconds.
///
/// A histogram series is written as `_bucket{…,le="…"}` lines with cumulative counts, then
/// `_sum` and `_count`. Its buckets are those of the fixed layout from the first up to the
/// highest non-empty one, then `+Inf`. The buckets above the highest non-empty one are left
/// out: each would hold the same cumulative count as `+Inf`, so no `histogram_quantile` answer
/// changes (its rank never falls above the highest non-empty bucket), and they would make a
/// 4-millisecond series 150 lines longer. The bounds that are written are always the layout's
/// own (the same `le` strings on every export), so a series keeps its buckets from scrape to
/// scrape; one only gains a bucket when a slower launch than any before arrives. Empty buckets
/// below are kept: trimming them would change a series' `le` set as its fastest launch moves.
public enum NodeExporterTextfile {
    /// The file's text: every histogram family, then every other value's family, each family
    /// in the order its first series came. Returns "" for an export with nothing in it.
    public static func render(_ export: FieldExport) -> String {
        var out = ""
        for family in families(export.histograms, name: \.name) {
            header(&out, family[0].name, family[0].help, type: "histogram")
            for histogram in family { series(&out, histogram) }
        }
        for family in families(export.values, name: \.name) {
            header(&out, family[0].name, family[0].help, type: family[0].kind.rawValue)
            for value in family {
                out += family[0].name + labelSet(value.labels) + " " + number(value.value) + "\n"
            }
        }
        return out
    }

    /// The series of `items` grouped by name, groups in first-seen order.
    static func families<Item>(_ items: [Item], name: (Item) -> String) -> [[Item]] {
        var order: [String] = []
        var groups: [String: [Item]] = [:]
        for item in items {
            let key = name(item)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(item)
        }
        return order.compactMap { groups[$0] }
    }

    static func header(_ out: inout String, _ name: String, _ help: String, type: String) {
        out += "# HELP \(name) \(escape(help, quotes: false))\n# TYPE \(name) \(type)\n"
    }

    static func series(_ out: inout String, _ histogram: ExportHistogram) {
        let cumulative = histogram.cumulativeCounts
        let highest = histogram.bucketCounts.dropLast().lastIndex { $0 > 0 } ?? -1
        let name = histogram.name
        for index in 0..<min(highest + 1, histogram.upperBounds.count) {
            let le = ExportLabel("le", number(histogram.upperBounds[index]))
            out += name + "_bucket" + labelSet(histogram.labels + [le]) + " \(cumulative[index])\n"
        }
        out += name + "_bucket" + labelSet(histogram.labels + [ExportLabel("le", "+Inf")]) + " \(histogram.count)\n"
        out += name + "_sum" + labelSet(histogram.labels) + " " + number(histogram.sum) + "\n"
        out += name + "_count" + labelSet(histogram.labels) + " \(histogram.count)\n"
    }

    /// `{key="value",…}`, or "" when there are no labels.
    static func labelSet(_ labels: [ExportLabel]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { $0.key + "=\"" + escape($0.value) + "\"" }.joined(separator: ",") + "}"
    }

    /// A float as Go's parser reads it: the shortest text that reads back as the same value
    /// (`0.0123`, `1.0717e-05`, `3`), `+Inf`, `-Inf`, `NaN`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return value.description
    }

    /// A label value (or, with `quotes: false`, HELP text) escaped scalar by scalar: `\` as
    /// `\\`, `"` as `\"`, a line feed as `\n`, after `ExportLabel.text` wrote each byte that is
    /// not UTF-8 as `\xNN`. Scalar by scalar, not by `Character`: "\r\n" is one `Character` that
    /// is not "\n".
    public static func escape(_ text: String, quotes: Bool = true) -> String {
        var out = ""
        for scalar in ExportLabel.text(text).unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"" where quotes: out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
