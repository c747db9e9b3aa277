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
        abstract: "Compare the start-up of two builds launched alternately (paired, interleaved): regression, improvement, no change or inconclusive.",
        usage: "premain compare [--run <name>] [--instructions] [--threshold-ms <ms>] [--threshold-percent <pct>] [--min-runs <n>] [--max-runs <n>] [--max-time <seconds>] [--explain | --no-explain] [--explain-runs <n>] [--explain-time <seconds>] [--format <format>] [--output <path>] [--export-trace <path>] [--export-bmf <file>] [--export-benchmark-action <file>] [--export-openmetrics <file>] <base> <head> [-- <argument>...]",
        discussion: """
        Launches BASE and HEAD in blocks of four, ABBA or BAAB (shuffled, balanced), under the \
        same pinning and environment, so drift of the machine's speed falls on both alike. Each \
        block gives one paired difference per quantity; the Hodges–Lehmann estimate and its \
        signed-rank interval decide: wholly above +threshold is a regression, wholly below \
        −threshold an improvement, wholly inside ±threshold no change. The threshold is the \
        larger of --threshold-ms and --threshold-percent of the base median (default 0.5 ms and \
        5 %, or premain.json's compare section). Runs continue after --min-runs until time to \
        main and time to first output have both decided, or until --max-runs or --max-time; then \
        the verdict is inconclusive with the reason. A wall-time change that CPU time, page \
        faults, context switches and the loader's counts do not back is "noise suspected", not a \
        regression. --instructions first counts each build's instructions under valgrind's \
        callgrind (exact: a change past --instruction-threshold decides even when wall time \
        cannot, and then stands in for CPU time as backing). After a regression or an improvement both \
        builds are traced alternately (--explain-runs, --explain-time) and the causes are named: each \
        initializer, Swift lazy global and default argument, and each object's initializers and \
        loading, paired by identity with its difference, interval and share of the change; what \
        they do not explain is said. Exit status 0 no change or improvement, 2 regression, 5 inconclusive, 4 when \
        a run failed, 3 when BASE or HEAD is not an executable file.
        """,
        arguments: [
            ArgumentSpec(name: "<base>", help: "The build before the change: an executable, or a folder with --run."),
            ArgumentSpec(name: "<head>", help: "The build after the change: an executable, or a folder with --run."),
            ArgumentSpec(name: "<argument>", help: "Arguments for both, after '--'."),
        ],
        options: [
            OptionSpec(names: ["--run"], valueName: "name", help: "With folders: the executable to launch, a path relative to each folder that stays inside it (never looked up in PATH)."),
        ] + comparisonOptions + [
            OptionSpec(names: ["-f", "--format"], valueName: "format", help: "Output format: text (default), json, markdown, html (one self-contained page: verdict, both sides on one axis), sarif or github (the causes of a regression or an improvement at their source lines, for code scanning or workflow annotations)."),
            OptionSpec(names: ["-o", "--output"], valueName: "path", help: "Write the report to this file instead of stdout."),
        ] + launchOptions + [
            OutputWidth.option, ConfigOptions.config, ConfigOptions.noConfig, TraceExport.option, SourceRootOptions.sourceRoot,
        ] + BenchmarkExports.options,
        acceptsPassthrough: true)

    /// The thresholds, the run budget and instruction counting; `premain pr` takes them too.
    static let comparisonOptions: [OptionSpec] = [
        OptionSpec(names: ["--threshold-ms"], valueName: "ms", help: "Smallest difference that counts (default 0.5)."),
        OptionSpec(names: ["--threshold-percent"], valueName: "pct", help: "Smallest difference relative to the base median that counts (default 5)."),
        OptionSpec(names: ["--confidence"], valueName: "level", help: "Confidence level of the intervals (default 0.95)."),
        OptionSpec(names: ["--min-runs"], valueName: "n", help: "Runs of each build before a verdict may be drawn (default 16)."),
        OptionSpec(names: ["--max-runs"], valueName: "n", help: "Runs of each build at most (default 200)."),
        OptionSpec(names: ["--max-time"], valueName: "seconds", help: "Seconds of launching at most (default 120)."),
        OptionSpec(names: ["--instructions"], valueName: nil, help: "Also count each build's instructions (before main, to first output, per initializer) in a run under valgrind's callgrind: exact, so a change past --instruction-threshold is a regression even when wall time is too noisy."),
        OptionSpec(names: ["--instruction-threshold"], valueName: "pct", help: "Smallest change of an instruction count relative to the base that counts (default 2)."),
        OptionSpec(names: ["-w", "--warmup"], valueName: "n", help: "Uncounted runs of each build first (default 1)."),
        OptionSpec(names: ["-t", "--timeout"], valueName: "seconds", help: "Kill a run that takes longer (default: no limit)."),
        OptionSpec(names: ["--seed"], valueName: "n", help: "Seed of the block order, to repeat a comparison (default 24301)."),
        OptionSpec(names: ["--explain"], valueName: nil, help: "Look for the causes of the first gated time's difference whatever the verdict (by default only a regression or an improvement is explained)."),
        OptionSpec(names: ["--no-explain"], valueName: nil, help: "Do not look for causes: no tracing after the timed runs."),
        OptionSpec(names: ["--explain-runs"], valueName: "n", help: "Traced runs of each build when explaining a change, alternated like the timed runs (default 8)."),
        OptionSpec(names: ["--explain-time"], valueName: "seconds", help: "Seconds of tracing at most when explaining a change (default 60)."),
    ]

    /// How the launches run; `premain pr` takes them too.
    static let launchOptions: [OptionSpec] = [
        OptionSpec(names: ["--no-pin"], valueName: nil, help: "Do not pin premain and the targets to different CPUs."),
        OptionSpec(names: ["--no-realtime"], valueName: nil, help: "Do not raise premain's measuring thread to SCHED_FIFO."),
        OptionSpec(names: ["--allow-idle"], valueName: nil, help: "Do not hold /dev/cpu_dma_latency at 0."),
    ]

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = try arguments.choice("--format", ["text", "json", "markdown", "html", "sarif", "github"], default: "text")
        guard arguments.positionals.count == 2 else {
            throw UsageError(message: arguments.positionals.count < 2
                ? "missing expected argument '<\(arguments.positionals.isEmpty ? "base" : "head")>'"
                : "unexpected argument '\(arguments.positionals[2])'; put the arguments of the builds after '--'")
        }
        let config = try ConfigOptions.load(arguments)
        let locator = try SourceRootOptions.locator(arguments, artifacts: arguments.positionals)
        var options = try compareOptions(arguments, config.compare)
        options.baseLabel = arguments.positionals[0]
        options.headLabel = arguments.positionals[1]
        options.keepRawSamples = TraceExport.path(arguments) != nil || format == "html"
        guard addInstructionCounter(arguments, to: &options) else { return .inputError }
        let run = arguments.value("--run")
        if let run { try BuildExecutable.checkInsideFolder(run) }
        var executables: [String] = []
        for side in arguments.positionals {
            switch BuildExecutable.resolve(side, run: run) {
            case .success(let path): executables.append(path)
            case .failure(let problem):
                Console.error(problem.message)
                return problem.isUsage ? .usage : .inputError
            }
        }
        try OutputOptions.refuseInputAsOutput(arguments, inputs: executables)
        if let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
        let progress = ProgressBar.onTerminal("compare")
        var report: CompareReport
        do {
            report = try CompareSession(launcher: ProcessLauncher()).compare(
                base: executables[0], head: executables[1], arguments: arguments.passthrough,
                environment: ProcessEnvironment.current(), options: options) { step in progress?.update(step) }
        } catch {
            progress?.finish()
            Console.error(error.description)
            if case .instructionCountFailed(.runFailed) = error { return .targetFailed }
            return .internalError
        }
        progress?.finish()
        guard TraceExport.write(arguments, { () throws -> String in try TraceEventRenderer.render(report) }),
              BenchmarkExports.write(arguments, { BenchmarkMetrics.of(report) }) else {
            return .internalError
        }
        if format != "html" {  // launches kept for the trace file or the page only
            report.base.samples = nil
            report.head.samples = nil
        }
        let written = Console.emit(to: arguments.value("--output")) { () throws -> String in
            switch format {
            case "json": return try JSONRenderer.render(report)
            case "markdown": return CompareMarkdownRenderer.render(report, scope: locator.scope)
            case "html": return HTMLReportRenderer.render(report)
            case "sarif", "github":
                let causes = locator.locate(CauseText.claimed(report).map { CauseText.finding($0, report: report) })
                return format == "sarif" ? try SARIFRenderer.render(causes: causes, version: report.tool.version, scope: locator.scope)
                    : GitHubAnnotationRenderer.render(causes: causes, scope: locator.scope)
            default: return CompareTextRenderer.render(report, width: OutputWidth.resolve(arguments), scope: locator.scope)
            }
        }
        guard written else { return .internalError }
        return exitCode(report)
    }

    /// 2 regression, 5 inconclusive, 4 when a run failed, else 0.
    static func exitCode(_ report: CompareReport) -> ExitCode {
        if report.runs.stop == .failed { return .targetFailed }
        switch report.verdict {
        case .regression: return .regression
        case .inconclusive: return .inconclusive
        case .improvement, .noChange: return .success
        }
    }

    /// `comparisonOptions` and `launchOptions` from the command line, over premain.json's
    /// compare section (instruction counting apart: `addInstructionCounter`).
    static func compareOptions(_ arguments: ParsedArguments, _ configured: CompareSettings) throws(UsageError) -> CompareOptions {
        var options = CompareOptions(settings: try settings(arguments, configured))
        options.warmup = try arguments.integer("--warmup", default: 1, in: 0...1000)
        options.timeoutSeconds = arguments.value("--timeout") == nil ? nil
            : try arguments.number("--timeout", default: 0, in: 0.001...86_400)
        options.pin = !arguments.flag("--no-pin")
        options.realtimeMeasurer = !arguments.flag("--no-realtime")
        options.holdIdleLatency = !arguments.flag("--allow-idle")
        if arguments.flag("--explain") && arguments.flag("--no-explain") {
            throw UsageError(message: "--explain and --no-explain exclude each other")
        }
        options.explain = arguments.flag("--no-explain") ? .never : arguments.flag("--explain") ? .always : .whenChanged
        options.explainTrace.runs = try arguments.integer("--explain-runs", default: options.explainTrace.runs, in: 1...1000)
        options.explainTrace.maxSeconds = try arguments.number("--explain-time", default: options.explainTrace.maxSeconds,
                                                               in: 0...86_400)
        options.explainTrace.calibration = TraceCalibration.target
        return options
    }

    /// With `--instructions`, valgrind found and the counter set; `false` after one `Error:`
    /// line when valgrind is missing.
    static func addInstructionCounter(_ arguments: ParsedArguments, to options: inout CompareOptions) -> Bool {
        guard arguments.flag("--instructions") else { return true }
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
    static func settings(_ arguments: ParsedArguments, _ configured: CompareSettings) throws(UsageError) -> CompareSettings {
        var settings = configured
        settings.thresholdMs = try arguments.number("--threshold-ms", default: settings.thresholdMs, in: 0...1_000_000)
        settings.thresholdPercent = try arguments.number("--threshold-percent", default: settings.thresholdPercent, in: 0...1000)
        settings.confidence = try arguments.number("--confidence", default: settings.confidence, in: 0.5...0.9999)
        settings.minRuns = try arguments.integer("--min-runs", default: settings.minRuns, in: 2...100_000)
        settings.maxRuns = try arguments.integer("--max-runs", default: max(settings.maxRuns, settings.minRuns), in: 2...100_000)
        guard settings.maxRuns >= settings.minRuns else {
            throw UsageError(message: "--max-runs (\(settings.maxRuns)) is below --min-runs (\(settings.minRuns))")
        }
        settings.maxSeconds = try arguments.number("--max-time", default: settings.maxSeconds, in: 0...86_400)
        settings.instructionThresholdPercent = try arguments.number(
            "--instruction-threshold", default: settings.instructionThresholdPercent, in: 0...1000)
        settings.seed = UInt64(try arguments.integer("--seed", default: Int(clamping: settings.seed), in: 0...Int.max))
        return settings
    }
}

/// Finds the executable of one build: the file itself, or `--run NAME` inside a folder.
enum BuildExecutable {
    struct Problem: Error {
        var message: String
        /// A folder without --run, or --run with a file: the command line is wrong.
        var isUsage: Bool
    }

    /// Throws a usage error unless `run` names a file inside an artifact folder: a relative
    /// path whose `..` never climbs above the folder (`bin/../app` stays inside, `../../app` and
    /// `/usr/bin/app` do not), so that what is launched is the build's own program.
    static func checkInsideFolder(_ run: String) throws(UsageError) {
        guard !run.isEmpty else { throw UsageError(message: "--run takes a file name or a relative path, not ''") }
        guard !run.hasPrefix("/") else {
            throw UsageError(message: "--run '\(run)' is an absolute path; give a path relative to the artifact folder")
        }
        var depth = 0
        for component in run.split(separator: "/") {
            switch component {
            case ".": continue
            case "..": depth -= 1
            default: depth += 1
            }
            if depth < 0 {
                throw UsageError(message: "--run '\(run)' leaves the artifact folder; give a path inside it")
            }
        }
        guard depth > 0 else { throw UsageError(message: "--run '\(run)' is the artifact folder itself; give a file inside it") }
    }

    static func resolve(_ side: String, run: String?) -> Result<String, Problem> {
        switch LocalFiles.kind(side) {
        case .missing:
            return .failure(Problem(message: "\(TextSafety.display(side)): no such file or folder", isUsage: false))
        case .folder:
            guard let run, !run.isEmpty else {
                return .failure(Problem(message: "\(TextSafety.display(side)) is a folder; name the executable in it with --run NAME", isUsage: true))
            }
            let path = (side.hasSuffix("/") ? side : side + "/") + run
            return executable(path, described: "\(TextSafety.display(run)) in \(TextSafety.display(side))")
        case .file:
            if run != nil {
                return .failure(Problem(message: "\(TextSafety.display(side)) is a file; --run NAME needs artifact folders", isUsage: true))
            }
            return executable(side, described: TextSafety.display(side))
        case .other:
            return .failure(Problem(message: "\(TextSafety.display(side)): not a regular file or folder", isUsage: false))
        }
    }

    static func executable(_ path: String, described: String) -> Result<String, Problem> {
        guard LocalFiles.kind(path) == .file else {
            return .failure(Problem(message: "\(described): no such executable file", isUsage: false))
        }
        guard LocalFiles.isAccessible(path, X_OK) else {
            return .failure(Problem(message: "\(described): not executable (no x permission)", isUsage: false))
        }
        return .success(CommandResolver.absolute(path))
    }
}
