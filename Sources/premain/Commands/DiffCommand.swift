import PremainJudge
import PremainRender

/// `premain diff BASE HEAD`: what changed in start-up between two builds.
enum DiffCommand: Command {
    static let spec = CommandSpec(
        name: "diff",
        abstract: "Compare the start-up of two builds: static deltas, measured changes with a statistical test, new and fixed findings.",
        usage: "premain diff [--format <format>] [--fail-on <severity>] [--alpha <p>] [--min-effect-ms <ms>] [--min-effect-percent <pct>] [--top <n>] [--source-root <dir>] [--output <path>] <base> <head>",
        discussion: """
        Each side is an ELF file, a folder (its ELF executables and shared libraries, found \
        recursively, a symlinked folder followed, and its JSON reports from premain audit, \
        measure and trace; relocatable objects only with --include-objects, other JSON skipped), \
        or one JSON report; both sides must hold the same kind of facts (a measure report \
        against an audit is refused). Measured quantities (milestones, objects' \
        initializers, traced functions) are compared with the Mann–Whitney U test and a \
        bootstrap interval of the difference of medians; a change is a regression only when \
        p < alpha and the difference of medians exceeds the larger of \
        --min-effect-ms and --min-effect-percent of the base. Two separately measured series \
        cannot tell drift of the machine from a change, so a measured regression fails (exit 2) \
        only when something deterministic backs it: a new dependency, initializer or Swift \
        suspect, more loader look-ups, or CPU time that regressed too; otherwise the verdict is \
        "unconfirmed" (exit 0): confirm it with premain compare. Exit status 2 on a regression, \
        1 on new findings at or above --fail-on or a budget exceeded in head, 3 when an input \
        cannot be read. SARIF and github annotations hold head's findings (new and unchanged; \
        fixed ones are left out), placed in the checkout as premain check places them.
        """,
        arguments: [
            ArgumentSpec(name: "<base>", help: "The build before the change."),
            ArgumentSpec(name: "<head>", help: "The build after the change."),
        ],
        options: [
            OptionSpec(names: ["-f", "--format"], valueName: "format", help: "Output format: text (default), json, markdown (a pull-request comment), sarif (SARIF 2.1.0 for GitHub code scanning), github (workflow-command annotations), gitlab-codequality (a GitLab Code Quality report of head's findings) or html (one self-contained page)."),
            OptionSpec(names: ["-o", "--output"], valueName: "path", help: "Write the report to this file instead of stdout."),
            OutputWidth.option,
            OptionSpec(names: ["--alpha"], valueName: "p", help: "Significance level of the test (default 0.01, or diff.alpha in premain.json)."),
            OptionSpec(names: ["--min-effect-ms"], valueName: "ms", help: "Smallest change of a median that counts (default 0.5)."),
            OptionSpec(names: ["--min-effect-percent"], valueName: "pct", help: "Smallest change relative to the base median that counts (default 5)."),
            OptionSpec(names: ["--top"], valueName: "n", help: "Rows per table in the Markdown before '…and K more' (default 10)."),
            ConfigOptions.failOn, ConfigOptions.config, ConfigOptions.noConfig, SourceRootOptions.sourceRoot,
            FolderOptions.includeObjects,
        ])

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = try arguments.choice("--format", ["text", "json", "markdown", "sarif", "github", "gitlab-codequality", "html"], default: "text")
        guard arguments.positionals.count == 2 else {
            throw UsageError(message: arguments.positionals.count < 2 ? "missing expected argument '<\(arguments.positionals.isEmpty ? "base" : "head")>'"
                : "unexpected argument '\(arguments.positionals[2])'")
        }
        var config = try ConfigOptions.load(arguments)
        config.diff.alpha = try arguments.number("--alpha", default: config.diff.alpha, in: 0.000001...0.5)
        config.diff.minEffectMs = try arguments.number("--min-effect-ms", default: config.diff.minEffectMs, in: 0...1_000_000)
        config.diff.minEffectPercent = try arguments.number("--min-effect-percent", default: config.diff.minEffectPercent, in: 0...1000)
        let top = try arguments.integer("--top", default: 10, in: 1...1000)
        try OutputOptions.refuseInputAsOutput(arguments, inputs: arguments.positionals)
        let locator = try SourceRootOptions.locator(arguments, artifacts: arguments.positionals)
        let failOn = try ConfigOptions.failOn(arguments, config)
        let loader = RuleInputLoader(closureProvider: ClosureSupport.provider, includeObjects: arguments.flag("--include-objects"))
        let base = loader.load([arguments.positionals[0]])
        let head = loader.load([arguments.positionals[1]])
        try OutputOptions.refuseInputAsOutput(arguments, inputs: (base.input.objects + head.input.objects).map(\.path))
        FolderOptions.note(base.skipped, in: [arguments.positionals[0]])
        FolderOptions.note(head.skipped, in: [arguments.positionals[1]])
        let errors = base.errors + head.errors
        for error in errors { Console.error("\(TextSafety.display(error.path)): \(error.message)") }
        if !errors.isEmpty { return .inputError }
        if let mismatch = DiffBuilder.mismatch(base: base.input, head: head.input) {
            Console.error(mismatch)
            return .inputError
        }
        var report = DiffBuilder(config: config, failOn: failOn ?? .error)
            .diff(base: base.input, head: head.input, baseLabel: arguments.positionals[0], headLabel: arguments.positionals[1])
        report.findings = locator.locate(report.findings)
        let written = Console.emit(to: arguments.value("--output")) { () throws -> String in
            switch format {
            case "json": return try JSONRenderer.render(report)
            case "markdown": return DiffMarkdownRenderer.render(report, top: top)
            case "sarif": return try SARIFRenderer.render(report, catalog: RuleEngine(config: config).catalog, scope: locator.scope)
            case "github": return GitHubAnnotationRenderer.render(report, scope: locator.scope)
            case "gitlab-codequality": return try GitLabCodeQualityRenderer.render(report, scope: locator.scope)
            case "html": return HTMLReportRenderer.render(report)
            default: return DiffTextRenderer.render(report, width: OutputWidth.resolve(arguments))
            }
        }
        guard written else { return .internalError }
        switch report.verdict.status {
        case .regression: return .regression
        case .findings: return failOn == nil ? .success : .findings
        case .pass, .unconfirmed: return .success
        }
    }
}
