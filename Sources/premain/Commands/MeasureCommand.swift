import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender

#if canImport(Glibc)
    import Glibc
#endif

/// `premain measure [options] -- COMMAND [ARGS...]`: launch phases from process birth.
enum MeasureCommand: Command {
    static let spec = CommandSpec(
        name: "measure",
        abstract:
            "Time a command's launch from process birth: loader, each object's initializers, main, first output, exit.",
        discussion: """
            Runs the command \(runs) times after \(LaunchSettingsOptions.warmup) uncounted runs, with the environment passed \
            through and stdin from /dev/null (\(LaunchSettingsOptions.inheritStdin) passes premain's own). Times are \
            milliseconds since process birth (CLOCK_MONOTONIC read by the vforked child just before \
            execve, once pinning and its other set-up are done), stamped as glibc's LD_DEBUG=files lines arrive through a FIFO, so the program's \
            own output is untouched. An uninstrumented series (no LD_DEBUG) is interleaved to report \
            the observer effect. The target runs in its own process group, which is killed after \
            every run. Exit status \(ExitCode.targetFailed) when a run failed.

            Output: stdout goes to a private null device whose first write is watched, so output \
            costs what /dev/null costs (as root; otherwise, and with \(showOutput) or \(ready), through \
            a pipe, which the report says); stderr goes through a pipe.

            Exec chains (a driver that execs its tool) are split: each exec'd image gets its own \
            loader phases, initializers, main and counts. Objects loaded after main (dlopen) are \
            listed apart with their load and initializer times, never as time before main.

            Servers: \(until) first-output|main ends each run at that milestone, \(until) FUNCTION at the \
            first call of that function (a ptrace breakpoint, x86-64; its only other stops are the \
            loader's hook, main and the first write), \(ready) REGEX at the first line of output that \
            matches; the process group is then killed and the run counts as good. REGEX is matched \
            in time linear in the line, so \(LaunchSettingsOptions.timeout) bounds it too: literals, ., classes ([a-z], \
            [[:alpha:]], \\d \\w \\s \\h and their negations), anchors (^ $ \\A \\z \\Z \\b \\B), groups, \
            |, * + ? {n,m} (lazy or not), \\Q…\\E and the options (?i) (?s) (?m). Refused as a usage \
            error: back-references, lookahead and lookbehind, atomic groups, possessive \
            quantifiers, conditionals, recursion, backtracking verbs, \\K, \\G and \\p{…}.

            \(instructions) adds one run under valgrind's callgrind (the Debian package valgrind) and \
            an "instructions" section: instructions executed before main, to the first write to \
            stdout or stderr, and in all, plus each object's and each function's initializers. \
            Instruction counts do not drift with machine load: the same binary counts the same on \
            the same machine and environment. A command that execs another (sh -c 'exec ./app') is \
            followed: its last image is counted, with a note. Exit status \(ExitCode.inputError) when valgrind is \
            missing, \(ExitCode.targetFailed) when the counted run failed.
            """,
        passthrough: Passthrough(first: command),
        options: [
            MatrixOptions.launch, runs, LaunchSettingsOptions.warmup, cold, instructions, LaunchSettingsOptions.timeout,
            until, ready, format, OutputOptions.output, TraceExport.option,
        ] + BenchmarkExports.options,
        moreOptions: [
            ConfigOptions.config, ConfigOptions.noConfig, LaunchSettingsOptions.inheritStdin, OutputWidth.option,
            showOutput, discardOutput, noObserver, LaunchSettingsOptions.noPin, LaunchSettingsOptions.noRealtime,
            LaunchSettingsOptions.allowIdle, raw,
        ],
        exclusive: [[ready, until]])

    static let command = ArgumentSpec(
        name: "<command>",
        help: "The program to launch (looked up in PATH), after '--'; without it, premain.json's launches.",
        kind: .command)

    enum Format: String, OptionChoice {
        case text, json, markdown, html

        var note: String? {
            switch self {
            case .markdown: return "a job summary"
            case .html: return "one self-contained page with the launch waterfall"
            case .text, .json: return nil
            }
        }
    }

    static let runs = Option<Int>(
        "--runs", short: "-r", value: "n", help: "Counted runs", default: MeasureOptions().runs, in: 1...100_000)
    static let cold = Option.flag(
        "--cold", help: "Evict the executable and every object of its closure from the page cache before every run")
    static let until = Option<String?>(
        "--until", value: "milestone",
        help: "End each run at first-output, main or the first call of a function (a good run); for servers")
    static let ready = Option<String?>(
        "--ready", value: "regex",
        help:
            "End each run at the first line of stdout or stderr that matches (a good run); for servers. Linear-time matching: back-references, lookaround, atomic groups, possessive quantifiers and \\p{…} are refused"
    )
    static let format = OutputOptions.format(default: Format.text)
    static let showOutput = Option.flag(
        "--show-output",
        help:
            "Forward the target's stdout and stderr (to stderr when the JSON report goes to stdout); by default they are read, timed and dropped"
    )
    static let discardOutput = Option.flag(
        "--discard-output", help: "Drop the target's stdout and stderr (the default)")
    static let noObserver = Option.flag(
        "--no-observer", help: "Skip the uninstrumented series (no observer-effect figures)")
    static let raw = Option.flag(
        "--raw", help: "Add every run's raw launch record (absolute birth time, each loader line's time) to the JSON")
    static let instructions = Option.flag(
        "--instructions",
        help:
            "Also count instructions (before main, to first output, total, per initializer) in one run under valgrind's callgrind"
    )

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = arguments[format]
        let rows = try MatrixOptions.rows(
            arguments, commandLine: arguments.passthrough, perLaunch: [until, ready, cold])
        let environment = ProcessEnvironment.current()
        let commands = rows.map { $0.map(\.row.launch.run) } ?? [arguments.passthrough]
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs,
            inputs: commands.flatMap { OutputOptions.commandFiles($0, environment) }
                + [rows == nil ? nil : ConfigOptions.file(arguments)].compactMap { $0 })
        let output = arguments[OutputOptions.output]
        var options = try measureOptions(arguments, reportOnStdout: output == nil || output == "-")
        if let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
        if arguments[instructions] { options.instructionCounter = InstructionCounter() }
        let progress = ProgressBar.onTerminal("measure")
        let outcomes: [MeasureSession.Outcome]
        do {
            if let rows {
                outcomes = try MatrixMeasureSession(launcher: ProcessLauncher()).run(
                    rows: rows, environment: environment, options: options
                ) { step in progress?.update(step) }
            } else {
                outcomes = [
                    try MeasureSession(launcher: ProcessLauncher()).run(
                        command: arguments.passthrough, environment: environment, options: options
                    ) { step in progress?.update(step) }
                ]
            }
        } catch {
            progress?.finish()
            switch error {
            case .instructionCountFailed(let failure):
                Console.error(failure.description)
                return Self.exitCode(failure)
            case .noCommand, .commandNotFound, .cannotStop:
                Console.error(error.description)
                return .inputError
            case .launchFailed:
                Console.error(error.description)
                return .internalError
            }
        }
        progress?.finish()
        var measurements = outcomes.map(\.measurement)
        let countFailure = outcomes.lazy.compactMap(\.instructionFailure).first
        // The libraries the programs loaded, known now.
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs, inputs: measurements.flatMap { $0.objects.map(\.path) })
        // Every output that can be written is, whichever fails.
        let full = MeasureReport(measurements: measurements)
        var written = TraceExport.write(arguments, { () throws -> String in try TraceEventRenderer.render(full) })
        written = BenchmarkExports.write(arguments, { BenchmarkMetrics.of(full) }) && written
        if !arguments[raw] && format != .html {
            for index in measurements.indices { measurements[index].rawSamples = nil }
        }
        let report = MeasureReport(measurements: measurements)
        let reportWritten = Console.emit(to: output) { () throws -> String in
            switch format {
            case .json: return try JSONRenderer.render(report)
            case .html: return HTMLReportRenderer.render(report)
            case .markdown: return MeasureMarkdownRenderer.render(report)
            case .text: return MeasureTextRenderer.render(report, width: OutputWidth.resolve(arguments))
            }
        }
        guard written, reportWritten else { return .internalError }
        for measurement in measurements {
            let who = measurement.launch.map { _ in "\(measurement.rowLabel): " } ?? ""
            for failure in measurement.failures {
                Console.error("\(who)\(measurement.command.first ?? ""): \(failure)")
            }
        }
        if let countFailure {
            Console.error("instructions: \(countFailure.description)")
            return Self.exitCode(countFailure)
        }
        guard measurements.allSatisfy({ $0.status == .ok }) else { return .targetFailed }
        let over = rowBudgets(rows ?? [], measurements)
        for finding in over { Console.error("budget: \(finding.message)") }
        return over.isEmpty ? .success : .findings
    }

    /// How measure launches, from its options: runs, warm-up, cold, timeout, the observer
    /// series, pinning, the program's output (discarded, or passed on to a stream the report
    /// does not use), its stdin, and where each run ends (`--until`, `--ready`).
    static func measureOptions(_ arguments: ParsedArguments, reportOnStdout: Bool) throws(UsageError)
        -> MeasureOptions
    {
        let format = arguments[format]
        let handling: LaunchRequest.OutputHandling
        if !arguments[showOutput] || arguments[discardOutput] {
            handling = .discard
        } else {
            let stdoutTarget: Int32 = (format == .json && reportOnStdout) || Console.reportDescriptor == 2 ? 2 : 1
            handling = .forward { stream, bytes in
                Console.raw(stream == .stdout ? stdoutTarget : 2, bytes)
            }
        }
        var options = MeasureOptions(
            runs: arguments[runs], warmup: arguments[LaunchSettingsOptions.warmup], cold: arguments[cold],
            timeoutSeconds: arguments[LaunchSettingsOptions.timeout], observerSeries: !arguments[noObserver],
            pin: !arguments[LaunchSettingsOptions.noPin],
            realtimeMeasurer: !arguments[LaunchSettingsOptions.noRealtime], output: handling)
        options.keepRawSamples = arguments[raw] || TraceExport.path(arguments) != nil || format == .html
        options.inheritStdin = arguments[LaunchSettingsOptions.inheritStdin]
        if let until = arguments[until] {
            switch until {
            case "first-output": options.stop = .firstOutput
            case "main": options.stop = .main
            case "exit": options.stop = nil
            case "":
                throw UsageError(message: "\(Self.until) takes first-output, main, exit or a function name, not ''")
            default: options.stop = .symbol(until)
            }
        }
        if let ready = arguments[ready] {
            do {
                options.stop = .ready(try OutputPattern(ready))
            } catch {
                throw UsageError(message: "invalid value for '\(Self.ready)': \(error.message)")
            }
        }
        options.holdIdleLatency = !arguments[LaunchSettingsOptions.allowIdle]
        return options
    }

    /// Each row of the launch matrix against its launch's own budgets (exit 1 when over).
    static func rowBudgets(_ rows: [PlannedRow], _ measurements: [LaunchMeasurement]) -> [Finding] {
        zip(rows, measurements).flatMap { planned, measurement -> [Finding] in
            var medians: [Milestone: Double] = [:]
            for milestone in Milestone.allCases {
                if let time = measurement.milestones[milestone] { medians[milestone] = time.medianMs }
            }
            return BudgetChecker.launchBudgets(
                planned.row.launch, row: measurement.rowLabel, medians: medians, runs: measurement.runs)
        }
    }

    /// Every file measure writes: the report and the exports.
    static let outputs = [OutputOptions.output, TraceExport.option] + BenchmarkExports.exports.map(\.option)

    /// The exit code of an instruction count that failed: the target's failure, premain's own,
    /// or the input's (no valgrind, no command).
    static func exitCode(_ failure: InstructionCountError) -> ExitCode {
        switch failure {
        case .runFailed: return .targetFailed
        case .unreadableOutput: return .internalError
        case .noCommand, .valgrindNotFound, .commandNotFound: return .inputError
        }
    }
}
