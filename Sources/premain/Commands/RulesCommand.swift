import PremainJudge
import PremainModel
import PremainRender

/// `premain rules`: every rule with its severity and thresholds after premain.json.
enum RulesCommand: Command {
    static let spec = CommandSpec(
        name: "rules",
        abstract: "List the rules and budgets with their defaults (and premain.json's settings).",
        discussion:
            "Each rule has an identifier (for premain.json's \"rules\"), a severity, thresholds, and what to do when it fires. Measured rules need a premain measure or trace report.",
        options: [format, ConfigOptions.config],
        moreOptions: [ConfigOptions.noConfig])

    enum Format: String, OptionChoice {
        case text, json
    }

    static let format = OutputOptions.format(default: Format.text)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = arguments[format]
        let engine = RuleEngine(config: try ConfigOptions.load(arguments))
        if format == .text {
            return Console.out(RulesTextRenderer.render(engine.catalog)) ? .success : .internalError
        }
        struct Entry: Encodable {
            var description: RuleDescription
            var enabled: Bool
            var severity: Severity
            var values: [String: Double]
        }
        let entries = allRules.map { rule in
            let settings = engine.ruleConfig(rule.description)
            return Entry(
                description: rule.description, enabled: settings.enabled, severity: settings.severity,
                values: settings.values)
        }
        do {
            guard Console.out(try JSONRenderer.render(entries)) else { return .internalError }
        } catch {
            Console.error("cannot encode the rules: \(error)")
            return .internalError
        }
        return .success
    }
}
