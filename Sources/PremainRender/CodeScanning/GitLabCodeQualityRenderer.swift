import PremainModel

/// Renders findings as a GitLab Code Quality report (`artifacts:reports:codequality`): a JSON
/// array of `{description, check_name, fingerprint, severity, location: {path, lines: {begin}}}`.
/// Places are those of SARIF and annotations (`FindingPlacement`: a file of the checkout with
/// its line, else the build file or the binary at line 1); findings about system and toolchain
/// libraries are left out. `fingerprint` is the finding's (`rule:object[:symbol]`), made unique
/// within the report with `#2`, `#3` when two findings share one. Pure.
public enum GitLabCodeQualityRenderer {
    /// Findings of `premain check`.
    public static func render(_ report: CheckReport, scope: SourceScope) throws -> String {
        try render(report.findings, scope: scope)
    }

    /// Findings of `premain diff` that head has (new, then unchanged), then `causes` (a
    /// comparison's start-up causes as findings, for `pr`).
    public static func render(_ report: DiffReport, causes: [Finding] = [], scope: SourceScope) throws -> String {
        try render(report.findings.new + report.findings.unchanged + causes, scope: scope)
    }

    struct Issue: Encodable {
        struct Location: Encodable {
            struct Lines: Encodable { var begin: Int }
            var path: String
            var lines: Lines
        }

        var type = "issue"
        var checkName: String
        var description: String
        var fingerprint: String
        var severity: String
        var location: Location

        enum CodingKeys: String, CodingKey {
            case type, description, fingerprint, severity, location
            case checkName = "check_name"
        }
    }

    static func render(_ findings: [Finding], scope: SourceScope) throws -> String {
        var seen: [String: Int] = [:]
        let issues = findings.filter { FindingPlacement.isReported($0, scope: scope) }.map { finding -> Issue in
            let place = FindingPlacement(finding, scope: scope)
            let count = (seen[finding.fingerprint] ?? 0) + 1
            seen[finding.fingerprint] = count
            return Issue(
                checkName: finding.rule,
                description: TextSafety.plainText(finding.message + ". " + finding.advice),
                fingerprint: count == 1 ? finding.fingerprint : "\(finding.fingerprint)#\(count)",
                severity: severity(finding.severity),
                location: .init(path: place.path, lines: .init(begin: place.line ?? 1)))
        }
        return try JSONRenderer.render(issues)
    }

    /// GitLab's scale: `info`, `minor`, `major`, `critical`, `blocker`.
    static func severity(_ severity: Severity) -> String {
        switch severity {
        case .error: "major"
        case .warning: "minor"
        case .note: "info"
        }
    }
}
