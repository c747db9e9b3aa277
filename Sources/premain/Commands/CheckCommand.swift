import PremainJudge
import PremainModel
import PremainRender

/// `premain check INPUT...`: the rules and budgets over binaries, folders and reports.
enum CheckCommand: Command {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Evaluate the rules and the budgets of premain.json; fail on findings at or above --fail-on.",
        usage: "premain check [--format <format>] [--fail-on <severity>] [--config <path>] [--output <path>] <input>...",
        discussion: """
        Each input is an ELF file, a folder (its ELF files and *.json reports), or a JSON report \
        from premain audit, measure or trace; all inputs are checked together, so give the \
        measure and trace reports of a program with the program. Exit status 1 when a finding \
        is at or above --fail-on or a budget is exceeded, 3 when an input cannot be read.
        """,
        arguments: [ArgumentSpec(name: "<input>", help: "ELF files, folders, or premain JSON reports.")],
        options: [
            OptionSpec(names: ["-f", "--format"], valueName: "format", help: "Output format: text (default), json, sarif or markdown."),
            OptionSpec(names: ["-o", "--output"], valueName: "path", help: "Write the report to this file instead of stdout."),
            ConfigOptions.failOn, ConfigOptions.config, ConfigOptions.noConfig,
        ])

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = try arguments.choice("--format", ["text", "json", "sarif", "markdown"], default: "text")
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing expected argument '<input>'") }
        let config = try ConfigOptions.load(arguments)
        let failOn = try ConfigOptions.failOn(arguments, config)
        let loaded = RuleInputLoader(closureProvider: ClosureSupport.provider).load(arguments.positionals)
        let engine = RuleEngine(config: config)
        let findings = engine.findings(loaded.input)
        let report = CheckReport(inputs: arguments.positionals, findings: findings, failOn: failOn ?? .error,
                                 errors: loaded.errors)
        let written = Console.emit(to: arguments.value("--output")) { () throws -> String in
            switch format {
            case "json": return try JSONRenderer.render(report)
            case "sarif": return try SARIFRenderer.render(report, catalog: engine.catalog)
            case "markdown": return CheckMarkdownRenderer.render(report)
            default: return FindingsTextRenderer.render(report)
            }
        }
        guard written else { return .internalError }
        for error in loaded.errors { Console.error("\(TextSafety.display(error.path)): \(error.message)") }
        if !loaded.errors.isEmpty { return .inputError }
        guard let failOn else { return .success }
        return findings.contains { $0.severity >= failOn } ? .findings : .success
    }
}
