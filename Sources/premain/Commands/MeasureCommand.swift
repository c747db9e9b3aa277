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
        abstract: "Time a command's launch from process birth: loader, each object's initializers, main, first output, exit.",
        usage: "premain measure [--runs <n>] [--warmup <n>] [--cold] [--instructions] [--timeout <seconds>] [--until <milestone|function>] [--ready <regex>] [--format <format>] [--output <path>] [--export-trace <path>] [--export-bmf <file>] [--export-benchmark-action <file>] [--export-openmetrics <file>] -- <command> [<argument>...]",
        discussion: """
        Runs the command --runs times after --warmup uncounted runs, with the environment passed \
        through and stdin from /dev/null (--inherit-stdin passes premain's own). Times are \
        milliseconds since process birth (CLOCK_MONOTONIC read by the vforked child just before \
        execve, once pinning and its other set-up are done), stamped as glibc's LD_DEBUG=files lines arrive through a FIFO, so the program's \
        own output is untouched. An uninstrumented series (no LD_DEBUG) is interleaved to report \
        the observer effect. The target runs in its own process group, which is killed after \
        every run. Exit status 4 when a run failed.

        Output: stdout goes to a private null device whose first write is watched, so output \
        costs what /dev/null costs (as root; otherwise, and with --show-output or --ready, through \
        a pipe, which the report says); stderr goes through a pipe.

        Exec chains (a driver that execs its tool) are split: each exec'd image gets its own \
        loader phases, initializers, main and counts. Objects loaded after main (dlopen) are \
        listed apart with their load and initializer times, never as time before main.

        Servers: --until first-output|main ends each run at that milestone, --until FUNCTION at the \
        first call of that function (a ptrace breakpoint, x86-64; its only other stops are the \
        loader's hook, main and the first write), --ready REGEX at the first line of output that \
        matches; the process group is then killed and the run counts as good. REGEX is matched \
        in time linear in the line, so --timeout bounds it too: literals, ., classes ([a-z], \
        [[:alpha:]], \\d \\w \\s \\h and their negations), anchors (^ $ \\A \\z \\Z \\b \\B), groups, \
        |, * + ? {n,m} (lazy or not), \\Q…\\E and the options (?i) (?s) (?m). Refused as a usage \
        error: back-references, lookahead and lookbehind, atomic groups, possessive \
        quantifiers, conditionals, recursion, backtracking verbs, \\K, \\G and \\p{…}.

        --instructions adds one run under valgrind's callgrind (the Debian package valgrind) and \
        an "instructions" section: instructions executed before main, to the first write to \
        stdout or stderr, and in all, plus each object's and each function's initializers. \
        Instruction counts do not drift with machine load: the same binary counts the same on \
        the same machine and environment. A command that execs another (sh -c 'exec ./app') is \
        followed: its last image is counted, with a note. Exit status 3 when valgrind is \
        missing, 4 when the counted run failed.
        """,
        arguments: [ArgumentSpec(name: "<command>", help: "The program to launch (looked up in PATH), after '--'.")],
        options: [
            OptionSpec(names: ["-r", "--runs"], valueName: "n", help: "Counted runs (default 10)."),
            OptionSpec(names: ["-w", "--warmup"], valueName: "n", help: "Uncounted runs first (default 1)."),
            OptionSpec(names: ["--cold"], valueName: nil, help: "Evict the executable and every object of its closure from the page cache before every run."),
            OptionSpec(names: ["-t", "--timeout"], valueName: "seconds", help: "Kill a run that takes longer (default: no limit)."),
            OptionSpec(names: ["--until"], valueName: "milestone", help: "End each run at first-output, main or the first call of a function (a good run); for servers."),
            OptionSpec(names: ["--ready"], valueName: "regex", help: "End each run at the first line of stdout or stderr that matches (a good run); for servers. Linear-time matching: back-references, lookaround, atomic groups, possessive quantifiers and \\p{…} are refused."),
            OptionSpec(names: ["--inherit-stdin"], valueName: nil, help: "Give the target premain's stdin instead of /dev/null."),
            OptionSpec(names: ["-f", "--format"], valueName: "format", help: "Output format: text (default), json, markdown (a job summary) or html (one self-contained page with the launch waterfall)."),
            OptionSpec(names: ["-o", "--output"], valueName: "path", help: "Write the report to this file instead of stdout."),
            OutputWidth.option,
            OptionSpec(names: ["--show-output"], valueName: nil, help: "Forward the target's stdout and stderr (to stderr when the JSON report goes to stdout); by default they are read, timed and dropped."),
            OptionSpec(names: ["--discard-output"], valueName: nil, help: "Drop the target's stdout and stderr (the default)."),
            OptionSpec(names: ["--no-observer"], valueName: nil, help: "Skip the uninstrumented series (no observer-effect figures)."),
            OptionSpec(names: ["--no-pin"], valueName: nil, help: "Do not pin premain and the target to different CPUs."),
            OptionSpec(names: ["--no-realtime"], valueName: nil, help: "Do not raise premain's measuring thread to SCHED_FIFO."),
            OptionSpec(names: ["--allow-idle"], valueName: nil, help: "Do not hold /dev/cpu_dma_latency at 0 (idle CPUs may halt; stamps after long initializers may come late)."),
            OptionSpec(names: ["--raw"], valueName: nil, help: "Add every run's raw launch record (absolute birth time, each loader line's time) to the JSON."),
            OptionSpec(names: ["--instructions"], valueName: nil, help: "Also count instructions (before main, to first output, total, per initializer) in one run under valgrind's callgrind."),
            TraceExport.option,
        ] + BenchmarkExports.options,
        acceptsPassthrough: true)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = try arguments.choice("--format", ["text", "json", "markdown", "html"], default: "text")
        let runs = try arguments.integer("--runs", default: 10, in: 1...100_000)
        let warmup = try arguments.integer("--warmup", default: 1, in: 0...100_000)
        let timeout: Double? = arguments.value("--timeout") == nil ? nil
            : try arguments.number("--timeout", default: 0, in: 0.001...86_400)
        if let stray = arguments.positionals.first {
            throw UsageError(message: "unexpected argument '\(stray)'; put the command after '--'")
        }
        guard !arguments.passthrough.isEmpty else {
            throw UsageError(message: "missing expected argument '<command>' after '--'")
        }
        let output = arguments.value("--output")
        let reportOnStdout = output == nil || output == "-"
        let handling: LaunchRequest.OutputHandling
        if !arguments.flag("--show-output") || arguments.flag("--discard-output") {
            handling = .discard
        } else {
            let stdoutTarget: Int32 = (format == "json" && reportOnStdout) ? 2 : 1
            handling = .forward { stream, bytes in
                Console.raw(stream == .stdout ? stdoutTarget : 2, bytes)
            }
        }
        var options = MeasureOptions(runs: runs, warmup: warmup, cold: arguments.flag("--cold"),
                                     timeoutSeconds: timeout, observerSeries: !arguments.flag("--no-observer"),
                                     pin: !arguments.flag("--no-pin"), realtimeMeasurer: !arguments.flag("--no-realtime"),
                                     output: handling)
        options.keepRawSamples = arguments.flag("--raw") || TraceExport.path(arguments) != nil || format == "html"
        options.inheritStdin = arguments.flag("--inherit-stdin")
        if let until = arguments.value("--until") {
            switch until {
            case "first-output": options.stop = .firstOutput
            case "main": options.stop = .main
            case "exit": options.stop = nil
            case "": throw UsageError(message: "--until takes first-output, main, exit or a function name, not ''")
            default: options.stop = .symbol(until)
            }
        }
        if let ready = arguments.value("--ready") {
            guard options.stop == nil else {
                throw UsageError(message: "'--ready' and '--until' cannot be used together")
            }
            do {
                options.stop = .ready(try OutputPattern(ready))
            } catch {
                throw UsageError(message: "invalid value for '--ready': \(error.message)")
            }
        }
        options.holdIdleLatency = !arguments.flag("--allow-idle")
        if let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
        let environment = ProcessEnvironment.current()
        let counter = arguments.flag("--instructions") ? InstructionCounter() : nil
        if let counter {
            do {
                _ = try counter.locateValgrind(environment: environment)
            } catch {
                Console.error(error.description)
                return .inputError
            }
        }
        let progress = ProgressBar.onTerminal("measure")
        var measurement: LaunchMeasurement
        do {
            measurement = try MeasureSession(launcher: ProcessLauncher()).measure(
                command: arguments.passthrough, environment: environment, options: options) { step in
                    progress?.update(step)
                }
        } catch {
            progress?.finish()
            Console.error(error.description)
            switch error {
            case .noCommand, .commandNotFound, .cannotStop: return .inputError
            case .launchFailed, .instructionCountFailed: return .internalError
            }
        }
        progress?.finish()
        var countFailure: InstructionCountError?
        if let counter {
            do {
                measurement.instructions = try counter.count(command: arguments.passthrough, environment: environment,
                                                             timeoutSeconds: timeout)
            } catch {
                countFailure = error
            }
        }
        guard TraceExport.write(arguments, { () throws -> String in
            try TraceEventRenderer.render(MeasureReport(measurements: [measurement]))
        }), BenchmarkExports.write(arguments, { BenchmarkMetrics.of(MeasureReport(measurements: [measurement])) }) else {
            return .internalError
        }
        if !arguments.flag("--raw") && format != "html" { measurement.rawSamples = nil }
        let report = MeasureReport(measurements: [measurement])
        let written = Console.emit(to: output) { () throws -> String in
            switch format {
            case "json": return try JSONRenderer.render(report)
            case "html": return HTMLReportRenderer.render(report)
            case "markdown": return MeasureMarkdownRenderer.render(report)
            default: return MeasureTextRenderer.render(report, width: OutputWidth.resolve(arguments))
            }
        }
        guard written else { return .internalError }
        for failure in measurement.failures { Console.error("\(measurement.command[0]): \(failure)") }
        if let countFailure {
            Console.error("instructions: \(countFailure.description)")
            switch countFailure {
            case .runFailed: return .targetFailed
            case .unreadableOutput: return .internalError
            case .noCommand, .valgrindNotFound, .commandNotFound: return .inputError
            }
        }
        return measurement.status == .ok ? .success : .targetFailed
    }
}
