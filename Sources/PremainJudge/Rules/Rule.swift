import PremainAudit
import PremainModel

/// A check over one program's start-up facts. Rules are pure: they read a `RuleInput` and a
/// `RuleConfig` and return findings; they never print and never read files.
public protocol Rule: Sendable {
    static var description: RuleDescription { get }
    init()
    /// Findings for `input`; `[]` when nothing is wrong or the data the rule needs is absent.
    func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding]
}

extension Rule {
    /// A finding of this rule with the configured severity.
    func finding(
        _ config: RuleConfig, _ subject: Finding.Subject, figure: Double? = nil, threshold: Double? = nil,
        unit: String? = nil, message: String, advice: String, location: SourceLocation? = nil
    ) -> Finding {
        Finding(
            rule: Self.description.identifier, severity: config.severity, subject: subject, figure: figure,
            threshold: threshold, unit: unit, message: message, advice: advice, location: location)
    }
}

/// Every rule, in the order `premain rules` lists them. A test runs each one's samples.
public let allRules: [any Rule.Type] = [
    HeavyStaticInitializerRule.self,
    ManyStaticInitializersRule.self,
    IostreamStaticInitializerRule.self,
    SwiftDefaultArgumentOnStartupPathRule.self,
    SwiftLazyGlobalOnStartupPathRule.self,
    RelativeRelocationsWithoutRelrRule.self,
    LargeExportTableRule.self,
    TextrelRule.self,
    CopyRelocationsRule.self,
    ManyClosureObjectsRule.self,
    DeepDependencyChainRule.self,
    UnusedDirectDependencyRule.self,
    MissingDependencyRule.self,
]
