import PremainModel

/// Renders the rule registry with the effective settings for `premain rules`.
public enum RulesTextRenderer {
    public static func render(_ catalog: RuleCatalog) -> String {
        var out = ""
        for rule in catalog.rules {
            let description = rule.description
            let settings = rule.settings
            let values = settings.values.keys.sorted().map {
                "\($0)=\(Milliseconds.number(settings.values[$0] ?? 0, decimals: settings.values[$0] == settings.values[$0]?.rounded() ? 0 : 3))"
            }
            var flags = [settings.severity.rawValue]
            if description.measured { flags.append("measured") }
            if !settings.enabled { flags.append("disabled") }
            out +=
                "\(description.identifier) (\(flags.joined(separator: ", ")))\(values.isEmpty ? "" : "  " + values.joined(separator: " "))\n"
            out += "  \(description.summary)\n  fix: \(description.advice)\n\n"
        }
        out += "Budgets (premain.json \"budgets\" and \"allowlist\", severity error):\n"
        for budget in catalog.budgets { out += "  \(budget.identifier): \(budget.summary)\n" }
        return out
    }
}
