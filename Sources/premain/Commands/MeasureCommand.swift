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

            Without a command, measure runs the launches premain.json declares (its "launches": a \
            name, the program and arguments, until, temperature warm and/or cold, env, timeout, \
            budgets), or those \(launch) names: one row per launch and temperature, each with its \
            name in the report ("launch" in JSON). Cold rows evict the files first, as \(cold) does. \
            Exit status \(ExitCode.findings) when a row's median went over one of its launch's budgets \
            (maxMedianMsToMain, maxMedianMsToFirstOutput, maxMedianMsToExit). docs/config.md.
            """,
        arguments: [command],
        usageTerms: [
            .option(runs), .option(LaunchSettingsOptions.warmup), .option(cold), .option(instructions),
            .option(LaunchSettingsOptions.timeout), .option(until), .option(ready), .option(format),
            .option(OutputOptions.output), .option(TraceExport.option),
        ] + BenchmarkExports.exports.map { .option($0.option) } + [
            .alternatives([[.word("--"), .argument(command), .word("[<argument>...]")], [.option(launch)]])
        ],
        options: [
            runs, LaunchSettingsOptions.warmup, cold, LaunchSettingsOptions.timeout, until, ready,
            LaunchSettingsOptions.inheritStdin,
            format, OutputOptions.output, OutputWidth.option, showOutput, discardOutput, noObserver,
            LaunchSettingsOptions.noPin, LaunchSettingsOptions.noRealtime, LaunchSettingsOptions.allowIdle, raw,
            instructions,
            TraceExport.option, launch, ConfigOptions.config, ConfigOptions.noConfig,
        ] + BenchmarkExports.options,
        exclusive: [[ready, until]],
        acceptsPassthrough: true)

    static let launch = Option<[String]>.repeating(
        "--launch", value: "name",
        help:
            "Measure this launch of premain.json's launches (repeatable); without a command and without it, every declared launch"
    )

    static let command = ArgumentSpec(
        name: "<command>", help: "The program to launch (looked up in PATH), after '--'.", kind: .command)

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
        let timeout = arguments[LaunchSettingsOptions.timeout]
        if let stray = arguments.positionals.first {
            throw UsageError(message: "unexpected argument '\(stray)'; put the command after '--'")
        }
        let environment = ProcessEnvironment.current()
        // Without a command: the launches premain.json declares (all, or those --launch names).
        var launches: [LaunchDeclaration] = []
        if arguments.passthrough.isEmpty {
            let config = try ConfigOptions.load(arguments)
            launches = try Self.selected(config.launches, arguments[launch])
            guard !launches.isEmpty else {
                throw UsageError(
                    message:
                        "missing expected argument '<command>' after '--' (or declare launches in premain.json: docs/config.md)"
                )
            }
        } else if !arguments[launch].isEmpty {
            throw UsageError(message: "\(launch) measures declared launches; give it or a command after '--', not both")
        }
        let commands = launches.isEmpty ? [arguments.passthrough] : launches.map(\.run)
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs,
            inputs: commands.flatMap { OutputOptions.commandFiles($0, environment) }
                + [ConfigOptions.file(arguments)].compactMap { $0 })
        let output = arguments[OutputOptions.output]
        let reportOnStdout = output == nil || output == "-"
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
            timeoutSeconds: timeout, observerSeries: !arguments[noObserver],
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
        // Each row: a command (or a declared launch at one temperature) and its options.
        var rows: [(launch: String?, command: [String], environment: [String], options: MeasureOptions)] = []
        if launches.isEmpty {
            rows.append((nil, arguments.passthrough, environment, options))
        }
        for declared in launches {
            var row = options
            if let seconds = declared.timeoutSeconds { row.timeoutSeconds = seconds }
            switch declared.end {
            case .main: row.stop = .main
            case .firstOutput: row.stop = .firstOutput
            case .exit: row.stop = nil
            case .function(let name): row.stop = .symbol(name)
            case .ready(let pattern):
                do {
                    row.stop = .ready(try OutputPattern(pattern))
                } catch {
                    throw UsageError(message: "premain.json: launch '\(declared.name)': until.ready: \(error.message)")
                }
            }
            let added = declared.environment.map { "\($0.name)=\($0.value)" }
            let names = Set(declared.environment.map { $0.name + "=" })
            let merged = environment.filter { entry in !names.contains { entry.hasPrefix($0) } } + added
            for temperature in declared.temperatures {
                row.cold = temperature == .cold
                rows.append((declared.name, declared.run, merged, row))
            }
        }
        if let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
        var measurements: [LaunchMeasurement] = []
        var countFailures: [InstructionCountError] = []
        for row in rows {
            var rowOptions = row.options
            if arguments[instructions] { rowOptions.instructionCounter = InstructionCounter() }
            let progress = ProgressBar.onTerminal(row.launch.map { "measure \($0)" } ?? "measure")
            let outcome: MeasureSession.Outcome
            do {
                outcome = try MeasureSession(launcher: ProcessLauncher()).run(
                    command: row.command, environment: row.environment, options: rowOptions
                ) { step in
                    progress?.update(step)
                }
            } catch {
                progress?.finish()
                let name = row.launch.map { "launch '\($0)': " } ?? ""
                switch error {
                case .instructionCountFailed(let failure):
                    Console.error(name + failure.description)
                    return Self.exitCode(failure)
                case .noCommand, .commandNotFound, .cannotStop:
                    Console.error(name + error.description)
                    return .inputError
                case .launchFailed:
                    Console.error(name + error.description)
                    return .internalError
                }
            }
            progress?.finish()
            var measurement = outcome.measurement
            measurement.launch = row.launch
            if let failure = outcome.instructionFailure { countFailures.append(failure) }
            measurements.append(measurement)
        }
        // The libraries the programs loaded, known now.
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs, inputs: measurements.flatMap { $0.objects.map(\.path) })
        // Every output that can be written is, whichever fails.
        var written = TraceExport.write(
            arguments,
            { () throws -> String in
                try TraceEventRenderer.render(MeasureReport(measurements: measurements))
            })
        written =
            BenchmarkExports.write(arguments, { BenchmarkMetrics.of(MeasureReport(measurements: measurements)) })
            && written
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
            for failure in measurement.failures { Console.error("\(measurement.command[0]): \(failure)") }
        }
        if let countFailure = countFailures.first {
            Console.error("instructions: \(countFailure.description)")
            return Self.exitCode(countFailure)
        }
        if measurements.contains(where: { $0.status != .ok }) { return .targetFailed }
        // A declared launch's budgets: the median at each milestone it names.
        let exceeded = Self.budgetsExceeded(launches, measurements)
        for line in exceeded { Console.error(line) }
        return exceeded.isEmpty ? .success : .findings
    }

    /// The launches `names` asks for (`--launch`, repeatable), in the order declared; all of
    /// them when none is named. A name nothing declares is a usage error naming those that are.
    static func selected(_ declared: [LaunchDeclaration], _ names: [String]) throws(UsageError) -> [LaunchDeclaration] {
        guard !names.isEmpty else { return declared }
        for name in names where !declared.contains(where: { $0.name == name }) {
            let known = declared.map(\.name).joined(separator: ", ")
            throw UsageError(
                message:
                    "no launch '\(name)' in premain.json\(declared.isEmpty ? " (it declares none)" : "; it declares \(known)")"
            )
        }
        return declared.filter { names.contains($0.name) }
    }

    /// "launch 'version' (warm): median main 4.210 ms over its budget of 4.000 ms", one line per
    /// budget a row's median went over.
    static func budgetsExceeded(_ launches: [LaunchDeclaration], _ measurements: [LaunchMeasurement]) -> [String] {
        var lines: [String] = []
        for measurement in measurements {
            guard let name = measurement.launch, let declared = launches.first(where: { $0.name == name }) else {
                continue
            }
            for milestone in LaunchDeclaration.budgetMilestones {
                guard let limit = declared.maxMedianMs[milestone] else { continue }
                guard let named = Milestone(rawValue: milestone), let median = measurement.milestones[named]?.medianMs,
                    median > limit
                else { continue }
                lines.append(
                    "launch '\(name)' (\(measurement.cold ? "cold" : "warm")): median \(milestone) \(Milliseconds.text(median)) over its budget of \(Milliseconds.text(limit))"
                )
            }
        }
        return lines
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
