import PremainModel

/// Renders a `DiffReport` for a terminal: verdict, measured deltas, static deltas, findings
/// new and fixed. Names from binaries pass through `TextSafety`; lines fit `width` columns
/// (100 by default; `TextFit.unlimited` shortens and wraps nothing), names shortened as
/// `TextFit` allows, never cut.
public enum DiffTextRenderer {
    /// `verdict: false` leaves out the verdict, its reasons and warnings (`premain pr` prints its own).
    public static func render(_ report: DiffReport, width: Int = 100, verdict: Bool = true) -> String {
        /// A line wrapped at `width` with a hanging indent two spaces deeper than its own.
        func line(_ text: String) -> String { FindingsTextRenderer.wrap(text, width: width) }
        var out = ""
        if verdict {
            out += "verdict: \(report.verdict.status.rawValue)\n"
            for reason in report.verdict.reasons { out += line("  - \(TextSafety.display(reason))") }
        }
        if verdict && !report.warnings.isEmpty {
            out += "warnings:\n"
            for warning in report.warnings {
                out += line("  ! \(TextSafety.display(warning.message)) (\(TextSafety.display(warning.advice)))")
            }
        }
        if !report.measured.isEmpty {
            var table = TextTable(
                headers: ["measured", "base", "head", "delta", "%", "p", "change"],
                alignments: [.left, .right, .right, .right, .right, .right, .left],
                kinds: [.symbol], maxWidth: width)
            let negligible = report.measured.filter(\.isNegligible).count
            for delta in report.measured where !delta.isNegligible {
                let name: String
                switch delta.scope {
                case .milestone: name = "time to " + MeasuredDelta.milestoneName(delta.subject)
                case .object: name = "init " + delta.subject
                case .function: name = "\(delta.subject) (\(delta.object ?? "?"))"
                }
                table.add([
                    TextSafety.display(name), Self.ms(delta.base?.medianMs),
                    Self.ms(delta.head?.medianMs), Self.signedMs(delta.result.deltaMs),
                    Self.signedPercent(delta.result.percent),
                    delta.result.test.map { Milliseconds.number($0.pValue, decimals: 4) } ?? "-",
                    delta.result.change.rawValue,
                ])
            }
            out += "\n" + table.render()
            if negligible > 0 {
                out +=
                    "  (\(Plural.count(negligible, "initializer")) under 0.001 ms on both sides left out; --format json has them)\n"
            }
        }
        let changed = report.objects.filter { $0.status != .unchanged }
        out += "\nobjects: \(report.objects.count), changed: \(changed.count)\n"
        for delta in changed {
            var about = [delta.status.rawValue]
            if let place = delta.place, place != .project { about.append(place.rawValue) }
            if let programs = delta.mappedBy, !programs.isEmpty {
                about.append("mapped by " + programs.map(TextSafety.display).joined(separator: ", "))
            }
            out += line("  \(TextSafety.display(delta.name)) (\(about.joined(separator: ", ")))")
            for name in delta.neededAdded { out += "    + needs \(TextSafety.display(name))\n" }
            for name in delta.neededRemoved { out += "    - needs \(TextSafety.display(name))\n" }
            for count in delta.relocations + [delta.exports, delta.imports, delta.initializers] where count.delta != 0 {
                out +=
                    "    \(count.name): \(count.base.map(String.init) ?? "-") -> \(count.head.map(String.init) ?? "-")\n"
            }
            for name in delta.initializersAdded { out += line("    + initializer \(TextSafety.display(name))") }
            for name in delta.initializersRemoved { out += line("    - initializer \(TextSafety.display(name))") }
            for name in delta.swiftSuspectsAdded { out += line("    + Swift suspect \(TextSafety.display(name))") }
            for name in delta.swiftSuspectsRemoved { out += line("    - Swift suspect \(TextSafety.display(name))") }
        }
        for closure in report.closures where closure.delta != 0 {
            out +=
                "  closure of \(TextSafety.display(closure.name)): \(closure.base.map(String.init) ?? "-") -> \(closure.head.map(String.init) ?? "-") objects\n"
        }
        out +=
            "\nfindings: \(report.findings.new.count) new, \(report.findings.fixed.count) fixed, \(report.findings.unchanged.count) unchanged\n"
        for finding in report.findings.new {
            out += line("  new \(finding.severity.rawValue): \(TextSafety.display(finding.message))")
        }
        for finding in report.findings.fixed { out += line("  fixed: \(TextSafety.display(finding.message))") }
        return out
    }

    static func ms(_ value: Double?) -> String { value.map(Milliseconds.text) ?? "-" }

    static func signedMs(_ value: Double?) -> String {
        guard let value else { return "-" }
        return (value > 0 ? "+" : "") + Milliseconds.text(value)
    }

    static func signedPercent(_ value: Double?) -> String {
        guard let value else { return "-" }
        return (value > 0 ? "+" : "") + String(format1: value) + " %"
    }
}
