import PremainModel

/// Renders findings as GitHub Actions workflow commands, one line per finding:
/// `::warning file=PATH,line=N,title=RULE::message`. The command is `error`, `warning` or
/// `notice` after the severity; `file` and `line` are given when the finding has a place in
/// the source root (as in SARIF), and findings about system and toolchain libraries are left
/// out. Values are escaped as the runner requires, so a name cannot end the command or start
/// another. Pure.
public enum GitHubAnnotationRenderer {
    /// Findings of `premain check`.
    public static func render(_ report: CheckReport, scope: SourceScope) -> String {
        render(report.findings, scope: scope)
    }

    /// Findings of `premain diff` that head has: new, then unchanged.
    public static func render(_ report: DiffReport, scope: SourceScope) -> String {
        render(report.findings.new + report.findings.unchanged, scope: scope)
    }

    /// Findings of `premain diff` that head has, then `causes` (the comparison's start-up causes
    /// as findings, located in the checkout), each at its line.
    public static func render(_ report: DiffReport, causes: [Finding], scope: SourceScope) -> String {
        render(report.findings.new + report.findings.unchanged + causes, scope: scope)
    }

    /// Start-up causes of `premain compare` as annotations at their lines.
    public static func render(causes: [Finding], scope: SourceScope) -> String {
        render(causes, scope: scope)
    }

    static func render(_ findings: [Finding], scope: SourceScope) -> String {
        findings.filter { FindingPlacement.isReported($0, scope: scope) }.map { line($0, scope: scope) + "\n" }.joined()
    }

    /// One workflow command.
    static func line(_ finding: Finding, scope: SourceScope) -> String {
        let place = FindingPlacement(finding, scope: scope)
        var properties: [String] = []
        if place.inSourceRoot {
            properties.append("file=" + escapeProperty(TextSafety.display(place.path)))
            if let line = place.line { properties.append("line=\(line)") }
        }
        properties.append("title=" + escapeProperty(finding.rule))
        return "::\(command(finding.severity)) \(properties.joined(separator: ","))::"
            + escapeData(
                TextSafety.plainText(finding.pricedMessage + ". " + finding.adviceWithGroup, keepingLineBreaks: true))
    }

    static func command(_ severity: Severity) -> String {
        switch severity {
        case .error: return "error"
        case .warning: return "warning"
        case .note: return "notice"
        }
    }

    /// A message: `%`, CR and LF percent-encoded.
    static func escapeData(_ text: String) -> String {
        escape(text, property: false)
    }

    /// A property value: as a message, and `:` and `,` percent-encoded too.
    static func escapeProperty(_ text: String) -> String {
        escape(text, property: true)
    }

    /// Per Unicode scalar, never per character (`String.replacing` matches grapheme clusters,
    /// so a `:` followed by a combining mark, or `\r\n`, would go out raw).
    private static func escape(_ text: String, property: Bool) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "%": escaped += "%25"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            case ":" where property: escaped += "%3A"
            case "," where property: escaped += "%2C"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
