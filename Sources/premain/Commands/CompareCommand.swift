import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `premain compare BASE HEAD [-- ARGS...]`: a paired, interleaved comparison of two builds.
enum CompareCommand: Command {
    static let spec = CommandSpec(
        name: "compare",
        abstract:
            "Compare the start-up of two builds launched alternately (paired, interleaved): regression, improvement, no change or inconclusive.",
        discussion: """
            Launches BASE and HEAD in blocks of four, ABBA or BAAB (shuffled, balanced), under the \
            same pinning and environment, so drift of the machine's speed falls on both alike. Each \
            block gives one paired difference per quantity; the Hodges–Lehmann estimate and its \
            signed-rank interval decide: wholly above +threshold is a regression, wholly below \
            −threshold an improvement, wholly inside ±threshold no change. The threshold is the \
            larger of \(thresholdMs) and \(thresholdPercent) of the base median (default 0.5 ms and \
            5 %, or premain.json's compare section). Runs continue after \(minRuns) until time to \
            main and time to first output have both decided, or until \(maxRuns) or \(maxTime); then \
            the verdict is inconclusive with the reason. A wall-time change that CPU time, page \
            faults, context switches and the loader's counts do not back is "noise suspected", not a \
            regression. \(instructions) first counts each build's instructions under valgrind's \
            callgrind (exact: a change past \(instructionThreshold) decides even when wall time \
            cannot, and then stands in for CPU time as backing). After a regression or an improvement both \
            builds are traced alternately (\(explainRuns), \(explainTime)) and the causes are named: each \
            initializer, Swift lazy global and default argument, and each object's initializers and \
            loading, paired by identity with its difference, interval and share of the change; what \
            they do not explain is said. Exit status \(VerdictStatus.noChange.exitCode) no change or improvement, \
            \(VerdictStatus.regression.exitCode) regression, \(VerdictStatus.inconclusive.exitCode) inconclusive, \
            \(VerdictStatus.runFailed.exitCode) when a run failed, \(ExitCode.inputError) when BASE or HEAD is not an executable file.
            """,
        arguments: [base, head],
        passthrough: Passthrough(first: passedArguments),
        options: [
            BuildExecutable.run, MatrixOptions.launch, instructions, thresholdMs, thresholdPercent, minRuns, maxRuns,
            maxTime, explain, noExplain, explainRuns, explainTime, format, OutputOptions.output, TraceExport.option,
        ] + BenchmarkExports.options,
        moreOptions: [confidence, instructionThreshold, seed] + LaunchSettingsOptions.all + [
            OutputWidth.option, ConfigOptions.config, ConfigOptions.noConfig, SourceRootOptions.sourceRoot,
        ],
        exclusive: [[explain, noExplain]])

    static let base = ArgumentSpec(
        name: "<base>", help: "The build before the change: an executable, or a folder with \(BuildExecutable.run).",
        kind: .path(.any))
    static let head = ArgumentSpec(
        name: "<head>", help: "The build after the change: an executable, or a folder with \(BuildExecutable.run).",
        kind: .path(.any))
    static let passedArguments = ArgumentSpec(
        name: "<argument>", help: "Arguments for both, after '--'.", repeating: true)

    enum Format: String, OptionChoice {
        case text, json, markdown, html, sarif, github

        var note: String? {
            switch self {
            case .html: return "one self-contained page: verdict, both sides on one axis"
            case .github:
                return
                    "the causes of a regression or an improvement at their source lines, for code scanning or workflow annotations"
            case .text, .json, .markdown, .sarif: return nil
            }
        }
    }

    static let format = OutputOptions.format(default: Format.text)
    static let thresholdMs = Option<Double>(
        "--threshold-ms", value: "ms", help: "Smallest difference that counts", default: CompareSettings().thresholdMs,
        in: CompareSettings.Bounds.thresholdMs)
    static let thresholdPercent = Option<Double>(
        "--threshold-percent", value: "pct", help: "Smallest difference relative to the base median that counts",
        default: CompareSettings().thresholdPercent, in: CompareSettings.Bounds.thresholdPercent)
    static let confidence = Option<Double>(
        "--confidence", value: "level", help: "Confidence level of the intervals",
        default: CompareSettings().confidence,
        in: CompareSettings.Bounds.confidence)
    static let minRuns = Option<Int>(
        "--min-runs", value: "n", help: "Runs of each build before a verdict may be drawn",
        default: CompareSettings().minRuns,
        in: CompareSettings.Bounds.minRuns)
    static let maxRuns = Option<Int>(
        "--max-runs", value: "n", help: "Runs of each build at most", default: CompareSettings().maxRuns,
        in: CompareSettings.Bounds.maxRuns)
    static let maxTime = Option<Double>(
        "--max-time", value: "seconds", help: "Seconds of launching at most", default: CompareSettings().maxSeconds,
        in: CompareSettings.Bounds.maxSeconds)
    static let instructions = Option.flag(
        "--instructions",
        help:
            "Also count each build's instructions (before main, to first output, per initializer) in a run under valgrind's callgrind: exact, so a change past \(instructionThreshold) is a regression even when wall time is too noisy"
    )
    static let instructionThreshold = Option<Double>(
        "--instruction-threshold", value: "pct",
        help: "Smallest change of an instruction count relative to the base that counts",
        default: CompareSettings().instructionThresholdPercent, in: CompareSettings.Bounds.instructionThresholdPercent)
    static let seed = Option<Int>(
        "--seed", value: "n", help: "Seed of the block order, to repeat a comparison",
        default: Int(CompareSettings().seed),
        in: 0...Int.max)
    static let explain = Option.flag(
        "--explain",
        help:
            "Look for the causes of the first gated time's difference whatever the verdict (by default only a regression or an improvement is explained)"
    )
    static let noExplain = Option.flag("--no-explain", help: "Do not look for causes: no tracing after the timed runs")
    static let explainRuns = Option<Int>(
        "--explain-runs", value: "n",
        help: "Traced runs of each build when explaining a change, alternated like the timed runs",
        default: PairedTracer.Options().runs, in: 1...1000)
    static let explainTime = Option<Double>(
        "--explain-time", value: "seconds", help: "Seconds of tracing at most when explaining a change",
        default: PairedTracer.Options().maxSeconds, in: 0...86_400)

    /// The thresholds, the run budget, instruction counting and explaining; `premain pr` takes them too.
    static let comparisonOptions: [any DeclaredOption] = [
        thresholdMs, thresholdPercent, confidence, minRuns, maxRuns, maxTime, instructions, instructionThreshold, seed,
        explain, noExplain, explainRuns, explainTime,
    ]

    /// Every file compare writes: the report and the exports.
    static let outputs = [OutputOptions.output, TraceExport.option] + BenchmarkExports.exports.map(\.option)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = arguments[format]
        let config = try ConfigOptions.load(arguments)
        let locator = try SourceRootOptions.locator(arguments, artifacts: arguments.positionals)
        var options = try compareOptions(arguments, config.compare)
        options.baseLabel = arguments.positionals[0]
        options.headLabel = arguments.positionals[1]
        options.keepRawSamples = TraceExport.path(arguments) != nil || format == .html
        guard addInstructionCounter(arguments, to: &options) else { return .inputError }
        let run = arguments[BuildExecutable.run]
        if let run { try BuildExecutable.checkInsideFolder(run) }
        if let rows = try MatrixOptions.rows(arguments, commandLine: arguments.passthrough, missing: nil) {
            return try runMatrix(arguments, rows: rows, options: options, format: format, locator: locator)
        }
        var executables: [String] = []
        for side in arguments.positionals {
            switch ArtifactProgram.resolve(side, run: run) {
            case .success(let path): executables.append(path)
            case .failure(let problem):
                Console.error(problem.message)
                return problem.isUsage ? .usage : .inputError
            }
        }
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs,
            inputs: arguments.positionals + executables + arguments.passthrough
                + [ConfigOptions.file(arguments)].compactMap { $0 })
        if let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
        let progress = ProgressBar.onTerminal("compare")
        var report: CompareReport
        do {
            report = try CompareSession(launcher: ProcessLauncher()).compare(
                base: executables[0], head: executables[1], arguments: arguments.passthrough,
                environment: ProcessEnvironment.current(), options: options
            ) { step in progress?.update(step) }
        } catch {
            progress?.finish()
            Console.error(error.description)
            if case .instructionCountFailed(.runFailed) = error { return .targetFailed }
            return .internalError
        }
        progress?.finish()
        // Every output that can be written is, whichever fails.
        var written = TraceExport.write(arguments, { () throws -> String in try TraceEventRenderer.render(report) })
        written = BenchmarkExports.write(arguments, { BenchmarkMetrics.of(report) }) && written
        if format != .html {  // launches kept for the trace file or the page only
            report.base.samples = nil
            report.head.samples = nil
        }
        let reportWritten = Console.emit(to: arguments[OutputOptions.output]) { () throws -> String in
            switch format {
            case .json: return try JSONRenderer.render(report)
            case .markdown: return CompareMarkdownRenderer.render(report, scope: locator.scope)
            case .html: return HTMLReportRenderer.render(report)
            case .sarif, .github:
                let causes = locator.locate(CauseText.claimed(report).map { CauseText.finding($0, report: report) })
                return format == .sarif
                    ? try SARIFRenderer.render(causes: causes, version: report.tool.version, scope: locator.scope)
                    : GitHubAnnotationRenderer.render(causes: causes, scope: locator.scope)
            case .text:
                return CompareTextRenderer.render(report, width: OutputWidth.resolve(arguments), scope: locator.scope)
            }
        }
        guard written, reportWritten else { return .internalError }
        return report.outcome.exitCode
    }

    /// `compare BASE HEAD` over premain.json's launches: one row per launch × temperature, the
    /// program of each launch found in each artifact folder (or BASE and HEAD themselves when
    /// they are executables), the rows interleaved; the exit code is the worst row's.
    static func runMatrix(
        _ arguments: ParsedArguments, rows: [PlannedRow], options: CompareOptions, format: Format,
        locator: SourceLocator
    ) throws(UsageError) -> ExitCode {
        guard [.text, .json, .markdown].contains(format) else {
            throw UsageError(
                message:
                    "--format \(format.rawValue) shows one launch; with premain.json's launches use text, json or markdown, or give the command after '--'"
            )
        }
        if arguments.has(TraceExport.option) {
            throw UsageError(message: "\(TraceExport.option) writes one launch; give the command after '--'")
        }
        let environment = ProcessEnvironment.current()
        var requests: [CompareRowRequest] = []
        for planned in rows {
            let launch = planned.row.launch
            var paths: [String] = []
            for side in arguments.positionals {
                let program = LocalFiles.kind(side) == .folder ? launch.run[0] : nil
                if let program { try BuildExecutable.checkInsideFolder(program) }
                switch ArtifactProgram.resolve(side, run: program) {
                case .success(let path): paths.append(path)
                case .failure(let problem):
                    Console.error("launch '\(launch.name)': \(problem.message)")
                    return problem.isUsage ? .usage : .inputError
                }
            }
            requests.append(CompareRowRequest(planned, base: paths[0], head: paths[1], environment: environment))
        }
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs,
            inputs: arguments.positionals + requests.flatMap { [$0.base, $0.head] }
                + [ConfigOptions.file(arguments)].compactMap { $0 })
        if let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
        let progress = ProgressBar.onTerminal("compare")
        var rowsCompared: [CompareReport]
        do {
            rowsCompared = try CompareSession(launcher: ProcessLauncher()).compare(rows: requests, options: options) {
                step in progress?.update(step)
            }
        } catch {
            progress?.finish()
            Console.error(error.description)
            if case .instructionCountFailed(.runFailed) = error { return .targetFailed }
            return .internalError
        }
        progress?.finish()
        for index in rowsCompared.indices {
            rowsCompared[index].base.samples = nil
            rowsCompared[index].head.samples = nil
        }
        let report = CompareMatrixReport(launches: rowsCompared)
        // The exports name each row's series by its launch and temperature.
        let exported = BenchmarkExports.write(arguments) { BenchmarkMetrics.of(report) }
        let written =
            exported
            && Console.emit(to: arguments[OutputOptions.output]) { () throws -> String in
                switch format {
                case .json: return try JSONRenderer.render(report)
                case .markdown: return MatrixText.compareMarkdown(report, scope: locator.scope)
                case .text, .html, .sarif, .github:  // html, sarif and github are refused above
                    return MatrixText.compareText(report, width: OutputWidth.resolve(arguments), scope: locator.scope)
                }
            }
        guard written else { return .internalError }
        // Each row against its launch's own budgets (head's medians): exit 1 when the rows
        // themselves fail nothing worse.
        var over: [Finding] = []
        for (planned, row) in zip(rows, rowsCompared) {
            over += BudgetChecker.launchBudgets(
                planned.row.launch, row: row.rowLabel, medians: BudgetChecker.headMedians(row),
                runs: row.runs.perSide, side: "head")
        }
        for finding in over { Console.error("budget: \(finding.message)") }
        let exit = report.exitCode
        return exit == .success && !over.isEmpty ? .findings : exit
    }

    /// `comparisonOptions` and `launchOptions` from the command line, over premain.json's
    /// compare section (instruction counting apart: `addInstructionCounter`).
    static func compareOptions(_ arguments: ParsedArguments, _ configured: CompareSettings) throws(UsageError)
        -> CompareOptions
    {
        var options = CompareOptions(settings: try settings(arguments, configured))
        options.warmup = arguments[LaunchSettingsOptions.warmup]
        options.timeoutSeconds = arguments[LaunchSettingsOptions.timeout]
        options.pin = !arguments[LaunchSettingsOptions.noPin]
        options.realtimeMeasurer = !arguments[LaunchSettingsOptions.noRealtime]
        options.holdIdleLatency = !arguments[LaunchSettingsOptions.allowIdle]
        options.explain = arguments[noExplain] ? .never : arguments[explain] ? .always : .whenChanged
        options.explainTrace.runs = arguments[explainRuns]
        options.explainTrace.maxSeconds = arguments[explainTime]
        options.explainTrace.calibration = TraceCalibration.target
        return options
    }

    /// With `--instructions`, valgrind found and the counter set; `false` after one `Error:`
    /// line when valgrind is missing.
    static func addInstructionCounter(_ arguments: ParsedArguments, to options: inout CompareOptions) -> Bool {
        guard arguments[instructions] else { return true }
        let counter = InstructionCounter()
        do {
            _ = try counter.locateValgrind(environment: ProcessEnvironment.current())
        } catch {
            Console.error(error.description)
            return false
        }
        options.instructionCounter = counter
        return true
    }

    /// premain.json's compare section with the command line's options over it.
    static func settings(_ arguments: ParsedArguments, _ configured: CompareSettings) throws(UsageError)
        -> CompareSettings
    {
        var settings = configured
        settings.thresholdMs = arguments[thresholdMs, default: settings.thresholdMs]
        settings.thresholdPercent = arguments[thresholdPercent, default: settings.thresholdPercent]
        settings.confidence = arguments[confidence, default: settings.confidence]
        settings.minRuns = arguments[minRuns, default: settings.minRuns]
        settings.maxRuns = arguments[maxRuns, default: max(settings.maxRuns, settings.minRuns)]
        guard settings.maxRuns >= settings.minRuns else {
            throw UsageError(message: "\(maxRuns) (\(settings.maxRuns)) is below \(minRuns) (\(settings.minRuns))")
        }
        settings.maxSeconds = arguments[maxTime, default: settings.maxSeconds]
        settings.instructionThresholdPercent =
            arguments[instructionThreshold, default: settings.instructionThresholdPercent]
        settings.seed = UInt64(arguments[seed, default: Int(clamping: settings.seed)])
        return settings
    }
}

/// `--run NAME`: the program inside each artifact folder (`ArtifactProgram` finds it).
enum BuildExecutable {
    /// `--run` of `compare` and `pr`.
    static let run = Option<String?>(
        "--run", value: "name", kind: .path(.file),
        help:
            "With artifact folders: the program to launch, a file in each folder or a path relative to it that stays inside it (no absolute path, no '..' above it; never looked up in PATH)"
    )

    /// Throws a usage error unless `run` names a file inside an artifact folder: a relative
    /// path whose `..` never climbs above the folder (`bin/../app` stays inside, `../../app` and
    /// `/usr/bin/app` do not), so that what is launched is the build's own program.
    static func checkInsideFolder(_ run: String) throws(UsageError) {
        guard !run.isEmpty else {
            throw UsageError(message: "\(Self.run) takes a file name or a relative path, not ''")
        }
        guard !run.hasPrefix("/") else {
            throw UsageError(
                message: "\(Self.run) '\(run)' is an absolute path; give a path relative to the artifact folder")
        }
        var depth = 0
        for component in run.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": depth -= 1
            default: depth += 1
            }
            if depth < 0 {
                throw UsageError(message: "\(Self.run) '\(run)' leaves the artifact folder; give a path inside it")
            }
        }
        guard depth > 0 else {
            throw UsageError(message: "\(Self.run) '\(run)' is the artifact folder itself; give a file inside it")
        }
    }
}
