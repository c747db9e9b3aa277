import PremainModel

/// Renders a `CheckReport` for a terminal: one block per finding (severity, rule, subject,
/// message, advice), then a summary line. Names from binaries pass through `TextSafety`.
public enum FindingsTextRenderer {
    public static func render(_ report: CheckReport) -> String {
        var out = ""
        for finding in report.findings {
            let subject = finding.subject.symbol.map { "\(finding.subject.object): \($0)" } ?? finding.subject.object
            out += "\(finding.severity.rawValue): [\(finding.rule)] \(TextSafety.display(subject))\n"
            out += "  \(TextSafety.display(finding.message))\n"
            out += "  fix: \(TextSafety.display(finding.advice))\n\n"
        }
        let counts = Severity.allCases.reversed().map { severity in
            let count = report.findings.filter { $0.severity == severity }.count
            return "\(count) \(severity.rawValue)\(count == 1 ? "" : "s")"
        }
        out += "\(report.findings.count) findings (\(counts.joined(separator: ", "))); "
        out += report.failing.isEmpty ? "none at or above \(report.failOn.rawValue)\n"
            : "\(report.failing.count) at or above \(report.failOn.rawValue): check failed\n"
        return out
    }
}
