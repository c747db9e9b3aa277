import FoundationEssentials
import LosslessText
import PremainModel

/// Renders findings as SARIF 2.1.0 for GitHub code scanning: one run, the rules of the
/// registry and the budgets as `tool.driver.rules`, one result per finding about the project's
/// objects (findings about system and toolchain libraries are left out), each with a physical
/// location relative to the source root (`uriBaseId` `SRCROOT`) and a `region.startLine` when
/// the finding has a location there, `partialFingerprints` made of rule, object file name and
/// symbol, and for a diff `baselineState` `new` or `unchanged` (fixed findings are left out:
/// code scanning closes an alert that is no longer reported). No URI holds an absolute path.
/// Pure.
public enum SARIFRenderer {
    public static let schema =
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    /// The `uriBaseId` of paths relative to the source root.
    public static let sourceRootID = "SRCROOT"
    /// The key of the fingerprint in `partialFingerprints`.
    public static let fingerprintKey = "premainFingerprint/v1"

    /// Findings of `premain check`.
    public static func render(_ report: CheckReport, catalog: RuleCatalog, scope: SourceScope) throws -> String {
        try render(report.findings.map { ($0, nil) }, catalog: catalog, version: report.tool.version, scope: scope)
    }

    /// Findings of `premain diff`: head's findings, new and unchanged; then `causes`, the
    /// start-up causes of `premain pr`'s comparison as findings (`CauseText.finding`, located in
    /// the checkout), each a `startup_regression_cause` result at its line.
    public static func render(
        _ report: DiffReport, catalog: RuleCatalog, scope: SourceScope,
        causes: [Finding] = []
    ) throws -> String {
        let findings =
            report.findings.new.map { ($0, Optional("new")) }
            + report.findings.unchanged.map { ($0, Optional("unchanged")) } + causes.map { ($0, Optional("new")) }
        return try render(findings, catalog: catalog, version: report.tool.version, scope: scope)
    }

    /// The start-up causes of `premain compare` (`CauseText.finding`, located in the checkout).
    public static func render(causes: [Finding], version: String, scope: SourceScope) throws -> String {
        try render(
            causes.map { ($0, Optional("new")) }, catalog: RuleCatalog(rules: [], budgets: []), version: version,
            scope: scope)
    }

    static func render(
        _ findings: [(Finding, String?)], catalog: RuleCatalog, version: String,
        scope: SourceScope
    ) throws -> String {
        var rules = catalog.rules.map { rule in
            let description = rule.description
            return Log.ReportingDescriptor(
                id: description.identifier, name: description.identifier.camelCased,
                shortDescription: .init(text: description.summary), fullDescription: .init(text: description.advice),
                defaultConfiguration: .init(level: description.severity.rawValue),
                help: .init(text: description.advice))
        }
        for budget in catalog.budgets {
            rules.append(
                .init(
                    id: budget.identifier, name: budget.identifier.camelCased,
                    shortDescription: .init(text: budget.summary), fullDescription: .init(text: budget.summary),
                    defaultConfiguration: .init(level: "error"),
                    help: .init(text: "Set budgets and the allowlist in premain.json at the repository root")))
        }
        if findings.contains(where: { $0.0.rule == StartupCauseRule.identifier }) {
            rules.append(
                .init(
                    id: StartupCauseRule.identifier, name: StartupCauseRule.identifier.camelCased,
                    shortDescription: .init(text: StartupCauseRule.summary),
                    fullDescription: .init(text: StartupCauseRule.advice),
                    defaultConfiguration: .init(level: "warning"),
                    help: .init(text: StartupCauseRule.advice)))
        }
        let index = Dictionary(rules.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        let results = findings.filter { FindingPlacement.isReported($0.0, scope: scope) }.map { finding, state in
            let object = TextSafety.plainText(finding.subject.object)
            var logical = [Log.LogicalLocation(name: object, fullyQualifiedName: object, kind: "module")]
            if let symbol = finding.subject.symbol {
                let symbol = TextSafety.plainText(symbol)
                logical.append(.init(name: symbol, fullyQualifiedName: "\(object)!\(symbol)", kind: "function"))
            }
            let place = FindingPlacement(finding, scope: scope)
            let physical = Log.PhysicalLocation(
                artifactLocation: .init(
                    uri: uriReference(place.path), uriBaseId: place.inSourceRoot ? sourceRootID : nil),
                region: place.line.map { Log.Region(startLine: $0) })
            return Log.Result(
                ruleId: finding.rule, ruleIndex: index[finding.rule], level: finding.severity.rawValue,
                message: .init(text: TextSafety.plainText(finding.pricedMessage + ". " + finding.adviceWithGroup)),
                locations: [.init(physicalLocation: physical, logicalLocations: logical)],
                partialFingerprints: [fingerprintKey: fingerprint(finding)], baselineState: state)
        }
        let log = Log(
            schema: schema, version: "2.1.0",
            runs: [
                .init(
                    tool: .init(driver: .init(name: "premain", version: version, rules: rules)),
                    originalUriBaseIds: [
                        sourceRootID: .init(
                            description: .init(text: "The top folder of the checkout (premain --source-root)"))
                    ],
                    results: results)
            ])
        return try JSONRenderer.render(log)
    }

    /// Rule, object file name (never a folder) and symbol: the same in every checkout and
    /// every build folder.
    static func fingerprint(_ finding: Finding) -> String {
        var subject = finding.subject
        subject.object = ObjectName.fileName(subject.object)
        subject.path = nil
        return Finding.fingerprint(rule: finding.rule, subject: subject)
    }

    /// A relative path as a URI reference: every byte but unreserved characters and `/`
    /// percent-encoded, and a leading `/` dropped, so it is never absolute.
    static func uriReference(_ path: String) -> String {
        var path = Substring(path)
        while path.hasPrefix("/") { path = path.dropFirst() }
        return path.unicodeScalars.map { scalar -> String in
            let c = Character(scalar)
            if scalar.isASCII, c.isLetter || c.isNumber || "/-._~".contains(c) { return String(c) }
            // A byte of the name that is not UTF-8: the byte itself, percent-encoded.
            if let byte = LosslessUTF8.rawByte(scalar) { return "%" + String(byte, radix: 16, uppercase: true) }
            return String(scalar).utf8.map { "%" + String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()
        }.joined()
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
            var originalUriBaseIds: [String: ArtifactLocation]
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
        struct PhysicalLocation: Encodable {
            var artifactLocation: ArtifactLocation
            var region: Region?
        }
        /// A path relative to `uriBaseId`; for a base id itself only a description (its
        /// absolute folder differs on every machine and is not written).
        struct ArtifactLocation: Encodable {
            var uri: String?
            var uriBaseId: String?
            var description: Message?

            init(uri: String? = nil, uriBaseId: String? = nil, description: Message? = nil) {
                self.uri = uri
                self.uriBaseId = uriBaseId
                self.description = description
            }
        }
        struct Region: Encodable { var startLine: Int }
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
