import PremainJudge
import PremainLaunch
import PremainModel
import PremainPullRequest
import PremainRender
import PremainSystem

/// `premain pr`: the start-up report of a pull request — two builds' artifact folders (given,
/// or built from two commits), their static diff and findings, and the paired comparison of
/// one program in them — written as a sticky comment, SARIF, JSON and text in one run.
enum PullRequestCommand: Command {
    static let spec = CommandSpec(
        name: "pr",
        abstract:
            "The start-up report of a pull request: static diff, findings and a paired launch comparison of two builds, in every format at once.",
        discussion: """
            Each side is an artifact folder: \(base) and \(head), or with \(commits) each commit checked \
            out into a git worktree in a temporary folder, built there with the \(build) command \
            (run by /bin/sh in its own process group; its output goes to stderr; \(buildTimeout) \
            ends it) and \(artifact) taken inside it; the worktrees are removed at the end, also when \
            premain is interrupted or killed (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGKILL): the \
            build's process group is killed and a watchdog process removes the worktrees and the \
            temporary folder. A symlinked folder such as SwiftPM's .build/release is followed, \
            with or without a trailing slash. Only ELF executables and shared libraries are read \
            (relocatable .o and .pcm files, archives, module files and JSON that is not a premain \
            report are left out, and one line says how many; \(FolderOptions.includeObjects) reads the objects \
            too). The static diff and the findings are premain diff's. \
            With \(BuildExecutable.run) NAME (a file in each folder, or a path relative to it that stays inside it; \
            never looked up in PATH) the two programs, with the arguments after '--', are compared as premain compare \
            does: launched alternately in shuffled ABBA/BAAB blocks until the paired interval \
            decides. Without \(BuildExecutable.run), premain.json's launches are compared (those \(MatrixOptions.launch) \
            names): each launch's program found in each folder, one row per launch × temperature, \
            the rows interleaved; the comment leads with the rows that changed, the others folded, \
            and the exit status is the worst row's. With neither, or when a program is missing or \
            cannot start, the report says 'not measured' and why. \
            A regression or an improvement is explained as compare explains it: both builds traced \
            alternately, the causes (function or object, file:line, difference, share) lead the \
            comment and are SARIF and \(github) results at their lines. \
            Text goes to stdout; \(markdown) writes the pull-request comment (first line \
            <!-- premain -->), \(sarif) the findings for code scanning, \(json) the whole report, \
            \(github) workflow annotations (their folders are made when missing). \
            Exit status (the worst that applies): \(VerdictStatus.runFailed.exitCode) a run failed; \
            \(VerdictStatus.regression.exitCode) regression; \(VerdictStatus.findings.exitCode) new findings at or \
            above \(ConfigOptions.failOn) or a budget exceeded; \(VerdictStatus.inconclusive.exitCode) inconclusive, or not measured \
            (no \(BuildExecutable.run)); \(VerdictStatus.pass.exitCode) \
            otherwise. \(ExitCode.inputError) when a folder cannot be read, has no ELF executable or library, or \(BuildExecutable.run) \
            names no executable in it (the reports are still written then); \(ExitCode.usage) usage error (also a \(BuildExecutable.run) \
            that is absolute or climbs out of the folder).
            """,
        passthrough: Passthrough(first: passedArguments),
        forms: [
            CommandForm(required: [base, head]),
            CommandForm(required: [commits, build, artifact], options: [buildTimeout, cacheDir]),
        ],
        options: [
            BuildExecutable.run, MatrixOptions.launch, markdown, sarif, json, github, codequality, BenchmarkExports.bmf,
        ],
        moreOptions: [DiffCommand.top, OutputWidth.option, FolderOptions.includeObjects]
            + CompareCommand.comparisonOptions + LaunchSettingsOptions.all + [
                ConfigOptions.failOn, ConfigOptions.config, ConfigOptions.noConfig, SourceRootOptions.sourceRoot,
            ] + HistoryTrend.options + BenchmarkExports.options,
        exclusive: [[CompareCommand.explain, CompareCommand.noExplain]])

    static let passedArguments = ArgumentSpec(
        name: "<argument>", help: "Arguments for the program of \(BuildExecutable.run), after '--'.", repeating: true)

    static let base = Option<String?>(
        "--base", value: "folder", kind: .path(.folder), help: "The base build's artifact folder")
    static let head = Option<String?>(
        "--head", value: "folder", kind: .path(.folder), help: "The head build's artifact folder")
    static let commits = Option<[String]>.words(
        "--commits", values: ["base", "head"],
        help: "Build these two commits of the current git repository (any revision git names) instead")
    static let build = Option<String?>(
        "--build", value: "command", kind: .command,
        help: "With \(commits): the build command, run by /bin/sh in each worktree")
    static let artifact = Option<String?>(
        "--artifact", value: "path", kind: .path(.folder),
        help: "With \(commits): the artifact folder, relative to the worktree (e.g. .build/release)")
    static let buildTimeout = Option<Double?>(
        "--build-timeout", value: "seconds",
        help:
            "With \(commits): end a build that takes longer: its process group is killed, and pr exits \(ExitCode.targetFailed)",
        in: 0.001...604_800,
        defaultText: "no limit")
    static let cacheDir = Option<String?>(
        "--cache-dir", value: "folder", kind: .path(.folder),
        help:
            "With \(commits): keep each built commit's artifact folder in FOLDER/<commit SHA> and take it from there next time"
    )
    static let markdown = Option<String?>(
        "--markdown", value: "file", kind: .path(.file),
        help: "Write the pull-request comment (Markdown) here" + OutputOptions.dashHelp)
    static let sarif = Option<String?>(
        "--sarif", value: "file", kind: .path(.file),
        help: "Write the findings as SARIF 2.1.0 here" + OutputOptions.dashHelp)
    static let json = Option<String?>(
        "--json", value: "file", kind: .path(.file),
        help: "Write the whole report as JSON here" + OutputOptions.dashHelp)
    static let github = Option<String?>(
        "--github", value: "file", kind: .path(.file),
        help:
            "Write GitHub workflow commands here, an annotation per finding and per start-up cause, at its line"
            + OutputOptions.dashHelp
    )
    static let codequality = Option<String?>(
        "--codequality", value: "file", kind: .path(.file),
        help: "Write the findings and start-up causes as a GitLab Code Quality report here" + OutputOptions.dashHelp)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let config = try ConfigOptions.load(arguments)
        let failOn = ConfigOptions.failOn(arguments, config)
        let top = arguments[DiffCommand.top]
        let trend = HistoryTrend.load(arguments)  // the base branch's history, read before any build
        var compareOptions = try CompareCommand.compareOptions(arguments, config.compare)
        _ = try SourceRootOptions.locator(arguments, artifacts: [])  // a bad --source-root fails before any build
        guard CompareCommand.addInstructionCounter(arguments, to: &compareOptions) else { return .inputError }
        let run = arguments[BuildExecutable.run]
        if let run { try BuildExecutable.checkInsideFolder(run) }
        if run == nil, !arguments.passthrough.isEmpty {
            throw UsageError(
                message:
                    "arguments after '--' are for the program of \(BuildExecutable.run); give \(BuildExecutable.run) NAME"
            )
        }
        // premain.json's launches (or those --launch names) when no --run is given: every row
        // compared, the comment leading with the matrix.
        let rows = try MatrixOptions.rows(
            arguments, commandLine: run.map { [$0] + arguments.passthrough } ?? [], missing: nil)
        for planned in rows ?? [] { try BuildExecutable.checkInsideFolder(planned.row.launch.run[0]) }
        let sides = try sides(arguments)
        var folders: [String] = []
        if case .folders(let base, let head) = sides { folders = [base, head] }
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs,
            inputs: [ConfigOptions.file(arguments), arguments[HistoryTrend.database]].compactMap { $0 },
            folders: folders)
        var request = PullRequestSession.Request(sides: sides, run: run)
        request.rows = rows
        request.arguments = arguments.passthrough
        request.environment = ProcessEnvironment.current()
        request.includeObjects = arguments[FolderOptions.includeObjects]
        request.config = config
        request.failOn = failOn
        request.compare = compareOptions
        request.sourceRoot = arguments[SourceRootOptions.sourceRoot]
        request.workingDirectory = ProcessEnvironment.currentDirectory() ?? "/"
        // Before any worktree, build or launch: an interrupted or killed premain must remove them.
        var startsProcesses = run != nil || rows != nil
        if case .commits = request.sides { startsProcesses = true }
        if startsProcesses, let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
        let outcome: PullRequestSession.Outcome
        let progress = ProgressBar.onTerminal("compare")
        do {
            outcome = try PullRequestSession(launcher: ProcessLauncher(), closures: ClosureSupport.options).run(
                request, log: { Console.status("premain pr: \($0)") }, progress: { progress?.update($0) })
            progress?.finish()
        } catch {
            progress?.finish()
            switch error {
            case .build(let message):
                Console.error(message)
                return .targetFailed
            case .inputs(let problems):
                for problem in problems { Console.error(problem) }
                return .inputError
            }
        }
        for problem in outcome.problems { Console.error(problem) }
        let written = write(outcome, arguments, config: config, top: top, trend: trend)
        guard written else { return .internalError }
        if outcome.programMissing { return .inputError }
        return outcome.report.verdict.status.exitCode(failOn: failOn)
    }

    /// Every output pr was asked for, each written whichever fails: the comment, SARIF,
    /// annotations, JSON, Code Quality, the exports, and the text on stdout. `false` when one
    /// could not be written.
    static func write(
        _ outcome: PullRequestSession.Outcome, _ arguments: ParsedArguments, config: PremainConfig, top: Int,
        trend: HistoryTrend.Loaded
    ) -> Bool {
        let report = outcome.report
        let diff = outcome.diff
        let locator = outcome.locator
        var written = true
        // The causes as findings located in the checkout, for SARIF and annotations at their lines.
        // Over the launch matrix, every row's causes.
        let compared = report.launches ?? report.compare.map { [$0] } ?? []
        let causes = locator.locate(
            compared.flatMap { compare in CauseText.claimed(compare).map { CauseText.finding($0, report: compare) } })
        for option in outputs {
            if let path = arguments[option], path != "-" { Console.makeParentFolders(of: path) }
        }
        if let path = arguments[markdown] {
            written =
                Console.emit(to: path) {
                    PullRequestMarkdownRenderer.render(
                        report, top: top, trend: trend.report, trendUnavailable: trend.unavailable, scope: locator.scope
                    )
                } && written
        }
        if let path = arguments[sarif] {
            written =
                Console.emit(to: path) { () throws -> String in
                    try SARIFRenderer.render(
                        diff, catalog: RuleEngine(config: config).catalog, scope: locator.scope, causes: causes)
                } && written
        }
        if let path = arguments[github] {
            written =
                Console.emit(to: path) {
                    GitHubAnnotationRenderer.render(diff, causes: causes, scope: locator.scope)
                } && written
        }
        if let path = arguments[json] {
            written = Console.emit(to: path) { () throws -> String in try JSONRenderer.render(report) } && written
        }
        if let path = arguments[codequality] {
            written =
                Console.emit(to: path) { () throws -> String in
                    try GitLabCodeQualityRenderer.render(diff, causes: causes, scope: locator.scope)
                } && written
        }
        written = BenchmarkExports.write(arguments) { BenchmarkMetrics.of(report) } && written
        written =
            Console.emit(to: nil) {
                PullRequestTextRenderer.render(report, width: OutputWidth.resolve(arguments), scope: locator.scope)
            } && written
        return written
    }

    /// Every file pr writes; one of them may be "-" (stdout, the text report then on stderr).
    static let outputs = [markdown, sarif, json, github, codequality] + BenchmarkExports.exports.map(\.option)

    /// The two sides from `--base`/`--head` or `--commits` with `--build` and `--artifact` (the
    /// parser has chosen the form and checked that its options are all there).
    static func sides(_ arguments: ParsedArguments) throws(UsageError) -> PullRequestSession.Sides {
        let revisions = arguments[commits]
        if revisions.count == 2 {
            guard let build = arguments[build], !build.isEmpty else {
                throw UsageError(message: "\(commits) needs \(Self.build.spec.usage)")
            }
            guard let artifact = arguments[artifact], !artifact.isEmpty else {
                throw UsageError(
                    message:
                        "\(commits) needs \(Self.artifact.spec.usage) (the artifact folder inside the worktree, e.g. .build/release)"
                )
            }
            return .commits(
                base: revisions[0], head: revisions[1],
                builds: CommitBuilds(
                    buildCommand: build, artifact: artifact, cacheDirectory: arguments[cacheDir],
                    buildTimeoutSeconds: arguments[buildTimeout]))
        }
        guard let base = arguments[base], let head = arguments[head] else {
            throw UsageError(message: "give \(Self.base.spec.usage) and \(Self.head.spec.usage)")
        }
        for (option, folder) in [(Self.base, base), (Self.head, head)] {
            switch LocalFiles.kind(folder) {
            case .folder: continue
            case .missing: throw UsageError(message: "\(option) '\(folder)': no such folder")
            case .file, .other:
                throw UsageError(
                    message:
                        "\(option) '\(folder)' is not a folder; give the artifact folder and name the program with \(BuildExecutable.run)"
                )
            }
        }
        return .folders(base: base, head: head)
    }
}
