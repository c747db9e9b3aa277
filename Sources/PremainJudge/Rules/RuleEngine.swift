import PremainAudit
import PremainModel

/// Runs every enabled rule and the budgets of a config over an input.
public struct RuleEngine: Sendable {
    public var config: PremainConfig

    public init(config: PremainConfig = PremainConfig()) {
        self.config = config
    }

    /// The effective settings of a rule: its defaults with premain.json applied.
    public func ruleConfig(_ description: RuleDescription) -> RuleConfig {
        var result = RuleConfig(description)
        if let override = config.rules[description.identifier] {
            if let enabled = override.enabled { result.enabled = enabled }
            if let severity = override.severity { result.severity = severity }
            result.values.merge(override.values) { _, new in new }
        }
        return result
    }

    /// Every rule with its effective settings, and the budgets.
    public var catalog: RuleCatalog {
        RuleCatalog(
            rules: allRules.map {
                RuleCatalog.Entry(description: $0.description, settings: ruleConfig($0.description))
            },
            budgets: BudgetChecker.descriptions.map {
                RuleCatalog.Budget(identifier: $0.identifier, summary: $0.summary)
            })
    }

    /// Findings of every enabled rule and every budget, priced from the input's measure and
    /// trace reports (`FindingPricer`), most severe first, then costliest, one per fingerprint
    /// (the first found wins).
    public func findings(_ input: RuleInput) -> [Finding] {
        var all: [Finding] = []
        for rule in allRules {
            let settings = ruleConfig(rule.description)
            guard settings.enabled else { continue }
            all += rule.init().check(input, settings)
        }
        // An object in the allowlist has reviewed initializers: the allowlist checks their
        // exact count, so many_static_initializers would only repeat it.
        let allowlisted = Set(config.allowlist.map(\.object))
        all.removeAll {
            $0.rule == ManyStaticInitializersRule.description.identifier && allowlisted.contains($0.subject.object)
        }
        all += BudgetChecker.check(input, config)
        var seen: Set<String> = []
        return FindingPricer(input: input).price(all.filter { seen.insert($0.fingerprint).inserted }).sorted()
    }
}
