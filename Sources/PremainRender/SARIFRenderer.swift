import FoundationEssentials
import PremainModel

/// Renders findings as SARIF 2.1.0 for code-scanning annotations: one run, the rules of the
/// registry and the budgets as `tool.driver.rules`, one result per finding with the
/// fingerprint as `partialFingerprints` and, for a diff, `baselineState`. Pure.
public enum SARIFRenderer {
    public static let schema = "https://json.schemastore.org/sarif-2.1.0.json"

    /// Findings of `premain check`.
    public static func render(_ report: CheckReport, catalog: RuleCatalog) throws -> String {
        try render(report.findings.map { ($0, nil) }, catalog: catalog, version: report.tool.version)
    }

    /// Findings of `premain diff`: head's findings (new and unchanged) and the fixed ones
    /// as `absent`.
    public static func render(_ report: DiffReport, catalog: RuleCatalog) throws -> String {
        let findings = report.findings.new.map { ($0, Optional("new")) }
            + report.findings.unchanged.map { ($0, Optional("unchanged")) }
            + report.findings.fixed.map { ($0, Optional("absent")) }
        return try render(findings, catalog: catalog, version: report.tool.version)
    }

    static func render(_ findings: [(Finding, String?)], catalog: RuleCatalog, version: String) throws -> String {
        var rules = catalog.rules.map { rule in
            let description = rule.description
            return Log.ReportingDescriptor(
                id: description.identifier, name: description.identifier.camelCased,
                shortDescription: .init(text: description.summary), fullDescription: .init(text: description.advice),
                defaultConfiguration: .init(level: description.severity.rawValue),
                help: .init(text: description.advice))
        }
        for budget in catalog.budgets {
            rules.append(.init(id: budget.identifier, name: budget.identifier.camelCased,
                               shortDescription: .init(text: budget.summary), fullDescription: .init(text: budget.summary), defaultConfiguration: .init(level: "error"),
                               help: .init(text: "Set budgets and the allowlist in premain.json at the repository root")))
        }
        let index = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.id, $0) })
        let results = findings.map { finding, state in
            var locations: [Log.Location] = []
            var logical = [Log.LogicalLocation(name: finding.subject.object, fullyQualifiedName: finding.subject.object, kind: "module")]
            if let symbol = finding.subject.symbol {
                logical.append(.init(name: symbol, fullyQualifiedName: "\(finding.subject.object)!\(symbol)", kind: "function"))
            }
            let uri = finding.subject.path.map(relativeURI) ?? finding.subject.object
            locations.append(.init(physicalLocation: .init(artifactLocation: .init(uri: uri)), logicalLocations: logical))
            return Log.Result(
                ruleId: finding.rule, ruleIndex: index[finding.rule], level: finding.severity.rawValue,
                message: .init(text: finding.message + ". " + finding.advice), locations: locations,
                partialFingerprints: ["premainFingerprint/v1": finding.fingerprint], baselineState: state)
        }
        let log = Log(
            schema: schema, version: "2.1.0",
            runs: [.init(tool: .init(driver: .init(name: "premain", version: version, rules: rules)),
                         results: results)])
        return try JSONRenderer.render(log)
    }

    /// A path as a relative URI when it is relative, else a `file://` URI.
    static func relativeURI(_ path: String) -> String {
        let encoded = path.unicodeScalars.map { scalar -> String in
            let c = Character(scalar)
            if scalar.isASCII, c.isLetter || c.isNumber || "/-._~$+".contains(c) { return String(c) }
            return String(scalar).utf8.map { "%" + String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()
        }.joined()
        return path.hasPrefix("/") ? "file://" + encoded : encoded
    }

    struct Log: Encodable {
        var schema: String
        var version: String
        var runs: [Run]

        enum CodingKeys: String, CodingKey {
            case schema = "$schema"
            case version, runs
        }

        struct Run: Encodable {
            var tool: Tool
            var results: [Result]
        }
        struct Tool: Encodable { var driver: Driver }
        struct Driver: Encodable {
            var name: String
            var version: String
            var rules: [ReportingDescriptor]
        }
        struct Message: Encodable { var text: String }
        struct Level: Encodable { var level: String }
        struct ReportingDescriptor: Encodable {
            var id: String
            var name: String
            var shortDescription: Message
            var fullDescription: Message
            var defaultConfiguration: Level
            var help: Message
        }
        struct Result: Encodable {
            var ruleId: String
            var ruleIndex: Int?
            var level: String
            var message: Message
            var locations: [Location]
            var partialFingerprints: [String: String]
            var baselineState: String?
        }
        struct Location: Encodable {
            var physicalLocation: PhysicalLocation
            var logicalLocations: [LogicalLocation]
        }
        struct PhysicalLocation: Encodable { var artifactLocation: ArtifactLocation }
        struct ArtifactLocation: Encodable { var uri: String }
        struct LogicalLocation: Encodable {
            var name: String
            var fullyQualifiedName: String
            var kind: String
        }
    }
}

extension String {
    /// `heavy_static_initializer` → `HeavyStaticInitializer`.
    var camelCased: String {
        split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
