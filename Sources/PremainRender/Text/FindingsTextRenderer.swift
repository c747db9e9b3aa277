import PremainModel

/// Renders a `CheckReport` for a terminal: one block per finding (severity, rule, subject,
/// message, advice), then a summary line. Names from binaries pass through `TextSafety`; lines
/// are wrapped at `width` columns (100 by default; `TextFit.unlimited` wraps nothing), never cut.
public enum FindingsTextRenderer {
    public static func render(_ report: CheckReport, width: Int = 100) -> String {
        var out = ""
        for finding in report.findings {
            let subject = finding.subject.symbol.map { "\(finding.subject.object): \($0)" } ?? finding.subject.object
            out += wrap("\(finding.severity.rawValue): [\(finding.rule)] \(TextSafety.display(subject))", width: width)
            out += wrap("  \(TextSafety.display(finding.message))", width: width)
            if let cost = finding.costBasis { out += wrap("  \(cost.sentence)", width: width) }
            if let verification = finding.verification {
                out += wrap("  \(TextSafety.display(verification.sentence))", width: width)
            }
            out += wrap("  fix: \(TextSafety.display(finding.advice))", width: width)
            for member in finding.grouped ?? [] {
                out += wrap("    - \(TextSafety.display(member.line))", width: width)
            }
            out += "\n"
        }
        let counts = Severity.allCases.reversed().map { severity in
            let count = report.findings.filter { $0.severity == severity }.count
            return "\(count) \(severity.rawValue)\(count == 1 ? "" : "s")"
        }
        var summary = "\(Plural.count(report.findings.count, "finding")) (\(counts.joined(separator: ", "))); "
        summary +=
            report.failing.isEmpty
            ? "none at or above \(report.failOn.rawValue)"
            : "\(report.failing.count) at or above \(report.failOn.rawValue): check failed"
        return out + wrap(summary, width: width)
    }

    /// `text` (one line) wrapped at spaces to `width` columns, continuation lines two spaces
    /// deeper than its own indent; a word wider than the line stands whole. Ends with "\n".
    static func wrap(_ text: String, width: Int) -> String {
        guard text.count > width else { return text + "\n" }
        let leading = String(text.prefix { $0 == " " })
        let words = text.split(separator: " ")
        return TextWrap.lines(words, width: width, first: leading, indent: leading + "  ")
            .map { $0.trailingSpacesRemoved }.joined(separator: "\n") + "\n"
    }
}
