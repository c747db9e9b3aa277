import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem

/// `premain check INPUT...`: the rules and budgets over binaries, folders and reports.
enum CheckCommand: Command {
    static let spec = CommandSpec(
        name: "check",
        abstract:
            "Evaluate the rules and the budgets of premain.json; fail on findings at or above \(ConfigOptions.failOn).",
        discussion: """
            Each input is an ELF file, a folder (its ELF executables and shared libraries, and its \
            premain JSON reports; a symlinked folder is followed), or a JSON report from premain \
            audit, measure or trace; all inputs are checked together, so give the measure and trace \
            reports of a program with the program. In a folder, relocatable objects (.o, .pcm) are \
            skipped unless \(FolderOptions.includeObjects), and JSON files that are not premain reports (SwiftPM's \
            output-file-map.json, description.json) are skipped; one 'Note:' line says what was. \
            Exit status \(VerdictStatus.findings.exitCode) when a finding is at or above \(ConfigOptions.failOn) or a budget is exceeded, \(ExitCode.inputError) when \
            an input cannot be read. \
            For code scanning (\(OutputOptions.formatName) sarif) and workflow annotations (\(OutputOptions.formatName) github), each \
            finding points at a line of the checkout: the DWARF line of the initializer or function \
            it is about, else the line of the build file at \(SourceRootOptions.sourceRoot) (Package.swift, \
            CMakeLists.txt, meson.build or Makefile) that names the object; findings about system \
            and toolchain libraries are left out of both. \
            With a measure (or trace) report of the program among the inputs, each finding about an \
            object or a function says what it costs per launch (its loading, relocation and \
            initializers, or its traced time) and findings are ordered by cost. \(verify) proves an \
            unused dependency's saving: a copy of the program without that DT_NEEDED entry \
            (patchelf, in a temporary folder; the program is only read) is compared with an \
            unchanged copy, paired and interleaved as premain compare does, and the measured saving \
            at main is printed beside the estimate.
            """,
        arguments: [inputs],
        options: [
            format, ConfigOptions.failOn, ConfigOptions.config, SourceRootOptions.sourceRoot, OutputOptions.output,
        ],
        moreOptions: [OutputWidth.option, ConfigOptions.noConfig, FolderOptions.includeObjects, verify])

    static let inputs = ArgumentSpec(
        name: "<input>", help: "ELF files, folders, or premain JSON reports.", kind: .path(.any), repeating: true)

    enum Format: String, OptionChoice {
        case text, json, sarif, markdown, github
        case gitlabCodeQuality = "gitlab-codequality"

        var note: String? {
            switch self {
            case .sarif: return "SARIF 2.1.0 for GitHub code scanning"
            case .github: return "workflow-command annotations"
            case .gitlabCodeQuality: return "a GitLab Code Quality report"
            case .text, .json, .markdown: return nil
            }
        }
    }

    static let format = OutputOptions.format(default: Format.text)
    static let verify = Option.flag(
        "--verify",
        help:
            "Measure the saving of each priced unused dependency on a patched copy (needs patchelf and the program's measure report)"
    )

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = arguments[format]
        try OutputOptions.refuseConflicts(
            arguments, outputs: [OutputOptions.output],
            inputs: arguments.positionals + [ConfigOptions.file(arguments)].compactMap { $0 })
        let locator = try SourceRootOptions.locator(arguments, artifacts: arguments.positionals)
        let config = try ConfigOptions.load(arguments)
        let failOn = ConfigOptions.failOn(arguments, config)
        let progress = ProgressBar.onTerminal("reading")
        let loaded = RuleInputLoader(
            closures: ClosureSupport.options, includeObjects: arguments[FolderOptions.includeObjects]
        )
        .load(arguments.positionals, progress: progress?.auditSteps)
        progress?.finish()
        // Files of the folders and the libraries of the programs' closures.
        try OutputOptions.refuseConflicts(
            arguments, outputs: [OutputOptions.output], inputs: ClosureSupport.inputFiles(loaded.input))
        FolderOptions.note(loaded.skipped, in: arguments.positionals)
        for note in loaded.notes { Console.note(note) }
        let engine = RuleEngine(config: config)
        var findings = locator.locate(engine.findings(loaded.input))
        if arguments[verify] {
            guard !loaded.input.launches.isEmpty else {
                throw UsageError(
                    message:
                        "\(verify) needs the program's measure report among the inputs (premain measure \(OutputOptions.formatName) json)"
                )
            }
            // The copies and their launches are removed and ended on SIGINT, SIGTERM, SIGHUP and
            // SIGQUIT, and by the watchdog when premain is killed (issue 34, defect 8).
            if let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
            let verifier = SavingVerifier(
                launcher: ProcessLauncher(),
                temporaryRoot: PremainEnvironment.temporaryDirectory())
            findings = verifier.verify(
                findings, launches: loaded.input.launches, environment: ProcessEnvironment.current()
            ) {
                Console.note($0)
            }
        }
        let report = CheckReport(
            inputs: arguments.positionals, findings: findings, failOn: failOn ?? .error,
            errors: loaded.errors, warnings: loaded.notes.isEmpty ? nil : loaded.notes)
        let written = Console.emit(to: arguments[OutputOptions.output]) { () throws -> String in
            switch format {
            case .json: return try JSONRenderer.render(report)
            case .sarif: return try SARIFRenderer.render(report, catalog: engine.catalog, scope: locator.scope)
            case .github: return GitHubAnnotationRenderer.render(report, scope: locator.scope)
            case .gitlabCodeQuality: return try GitLabCodeQualityRenderer.render(report, scope: locator.scope)
            case .markdown: return CheckMarkdownRenderer.render(report)
            case .text: return FindingsTextRenderer.render(report, width: OutputWidth.resolve(arguments))
            }
        }
        guard written else { return .internalError }
        for error in loaded.errors { Console.error("\(TextSafety.display(error.path)): \(error.message)") }
        if !loaded.errors.isEmpty { return .inputError }
        guard let failOn else { return .success }
        return findings.contains { $0.severity >= failOn } ? .findings : .success
    }
}
