import PremainJudge
import PremainModel
import PremainRender

/// `premain diff BASE HEAD`: what changed in start-up between two builds.
enum DiffCommand: Command {
    static let spec = CommandSpec(
        name: "diff",
        abstract:
            "Compare the start-up of two builds: static deltas, measured changes with a statistical test, new and fixed findings.",
        discussion: """
            Each side is an ELF file, a folder (its ELF executables and shared libraries, found \
            recursively, a symlinked folder followed, and its JSON reports from premain audit, \
            measure and trace; relocatable objects only with \(FolderOptions.includeObjects), other JSON skipped), \
            or one JSON report; both sides must hold the same kind of facts (a measure report \
            against an audit is refused). Measured quantities (milestones, objects' \
            initializers, traced functions) are compared with the Mann–Whitney U test and a \
            bootstrap interval of the difference of medians; a change is a regression only when \
            p < alpha and the difference of medians exceeds the larger of \
            \(minEffectMs) and \(minEffectPercent) of the base. Two separately measured series \
            cannot tell drift of the machine from a change, so a measured regression fails (exit \(VerdictStatus.regression.exitCode)) \
            only when something deterministic backs it: a new dependency, initializer or Swift \
            suspect, more loader look-ups, or CPU time that regressed too; otherwise the verdict is \
            "unconfirmed" (exit \(VerdictStatus.unconfirmed.exitCode)): confirm it with premain compare. Exit status \
            \(VerdictStatus.regression.exitCode) on a regression, \(VerdictStatus.findings.exitCode) on new findings at or above \(ConfigOptions.failOn) or a budget exceeded in head, \(ExitCode.inputError) when an input \
            cannot be read. SARIF and github annotations hold head's findings (new and unchanged; \
            fixed ones are left out), placed in the checkout as premain check places them.
            """,
        arguments: [base, head],
        options: [
            format, ConfigOptions.failOn, alpha, minEffectMs, minEffectPercent, top, SourceRootOptions.sourceRoot,
            OutputOptions.output,
        ],
        moreOptions: [OutputWidth.option, ConfigOptions.config, ConfigOptions.noConfig, FolderOptions.includeObjects])

    static let base = ArgumentSpec(name: "<base>", help: "The build before the change.", kind: .path(.any))
    static let head = ArgumentSpec(name: "<head>", help: "The build after the change.", kind: .path(.any))

    enum Format: String, OptionChoice {
        case text, json, markdown, sarif, github
        case gitlabCodeQuality = "gitlab-codequality"
        case html

        var note: String? {
            switch self {
            case .markdown: return "a pull-request comment"
            case .sarif: return "SARIF 2.1.0 for GitHub code scanning"
            case .github: return "workflow-command annotations"
            case .gitlabCodeQuality: return "a GitLab Code Quality report of head's findings"
            case .html: return "one self-contained page"
            case .text, .json: return nil
            }
        }
    }

    static let format = OutputOptions.format(default: Format.text)
    static let alpha = Option<Double>(
        "--alpha", value: "p", help: "Significance level of the test", default: DiffSettings().alpha,
        in: 0.000001...0.5,
        defaultText: "\(DiffSettings().alpha), or diff.alpha in premain.json")
    static let minEffectMs = Option<Double>(
        "--min-effect-ms", value: "ms", help: "Smallest change of a median that counts",
        default: DiffSettings().minEffectMs,
        in: 0...1_000_000)
    static let minEffectPercent = Option<Double>(
        "--min-effect-percent", value: "pct", help: "Smallest change relative to the base median that counts",
        default: DiffSettings().minEffectPercent, in: 0...1000)
    /// Rows per Markdown table; `premain pr` takes it too.
    static let top = Option<Int>(
        "--top", value: "n", help: "Rows per table in the Markdown before '…and K more'", default: 10, in: 1...1000)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = arguments[format]
        var config = try ConfigOptions.load(arguments)
        config.diff.alpha = arguments[alpha, default: config.diff.alpha]
        config.diff.minEffectMs = arguments[minEffectMs, default: config.diff.minEffectMs]
        config.diff.minEffectPercent = arguments[minEffectPercent, default: config.diff.minEffectPercent]
        let top = arguments[top]
        try OutputOptions.refuseConflicts(
            arguments, outputs: [OutputOptions.output],
            inputs: arguments.positionals + [ConfigOptions.file(arguments)].compactMap { $0 })
        let locator = try SourceRootOptions.locator(arguments, artifacts: arguments.positionals)
        let failOn = ConfigOptions.failOn(arguments, config)
        let loader = RuleInputLoader(
            closures: ClosureSupport.options, includeObjects: arguments[FolderOptions.includeObjects])
        let baseProgress = ProgressBar.onTerminal("reading base")
        let base = loader.load([arguments.positionals[0]], progress: baseProgress?.auditSteps)
        baseProgress?.finish()
        let headProgress = ProgressBar.onTerminal("reading head")
        let head = loader.load([arguments.positionals[1]], progress: headProgress?.auditSteps)
        headProgress?.finish()
        try OutputOptions.refuseConflicts(
            arguments, outputs: [OutputOptions.output],
            inputs: ClosureSupport.inputFiles(base.input) + ClosureSupport.inputFiles(head.input))
        FolderOptions.note(base.skipped, in: [arguments.positionals[0]])
        FolderOptions.note(head.skipped, in: [arguments.positionals[1]])
        for note in base.notes + head.notes { Console.note(note) }
        let errors = base.errors + head.errors
        for error in errors { Console.error("\(TextSafety.display(error.path)): \(error.message)") }
        if !errors.isEmpty { return .inputError }
        if let mismatch = DiffBuilder.mismatch(base: base.input, head: head.input) {
            Console.error(mismatch)
            return .inputError
        }
        var report = DiffBuilder(config: config, failOn: failOn ?? .error)
            .diff(
                base: base.input, head: head.input, baseLabel: arguments.positionals[0],
                headLabel: arguments.positionals[1])
        report.findings = locator.locate(report.findings)
        let written = Console.emit(to: arguments[OutputOptions.output]) { () throws -> String in
            switch format {
            case .json: return try JSONRenderer.render(report)
            case .markdown: return DiffMarkdownRenderer.render(report, top: top)
            case .sarif:
                return try SARIFRenderer.render(
                    report, catalog: RuleEngine(config: config).catalog, scope: locator.scope)
            case .github: return GitHubAnnotationRenderer.render(report, scope: locator.scope)
            case .gitlabCodeQuality: return try GitLabCodeQualityRenderer.render(report, scope: locator.scope)
            case .html: return HTMLReportRenderer.render(report)
            case .text: return DiffTextRenderer.render(report, width: OutputWidth.resolve(arguments))
            }
        }
        guard written else { return .internalError }
        return report.verdict.status.exitCode(failOn: failOn)
    }
}
