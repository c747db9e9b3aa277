import PremainLaunch
import PremainModel
import PremainRender

#if canImport(Glibc)
import Glibc
#endif

/// `premain trace [options] -- COMMAND [ARGS...]`: times every static initializer, Swift lazy
/// global and default argument (and `--function`s) on the way to a milestone, under ptrace.
enum TraceCommand: Command {
    static let spec = CommandSpec(
        name: "trace",
        abstract: "Time every static initializer, Swift lazy global and default argument on the start-up path.",
        usage: "premain trace [--until <milestone>] [--function <symbol> ...] [--runs <n>] [--export-trace <path>] [options] -- <command> [<argument>...]",
        discussion: """
        Runs the command under ptrace and plants breakpoints on every .preinit_array, .init_array, \
        .ctors and DT_INIT entry of every object as the loader maps it, on every Swift lazy-global \
        initializer (…WZ) and default-argument generator (…fA_, with inlined copies found through \
        DWARF), and on every --function. Each call is timed from entry to return; the tracer's own \
        cost per breakpoint pair is measured at start on an empty function and subtracted. \
        First output is the first call of libc write/writev on fd 1 or 2 (direct system calls are \
        not seen). When the milestone is reached premain kills the command's process group. \
        stdin is /dev/null unless --inherit-stdin. Functions are keyed by object and address: two \
        functions with one name are two rows, shown with their address. An IFUNC symbol times its \
        resolver, and is marked so. Exit status 3 when the command is not found, 4 when a run \
        failed (each failure explained on stderr) or the command cannot be started. The ptrace engine knows \
        x86-64 only: on any other machine trace prints 'trace is supported on x86-64 only' and \
        exits 70.
        """,
        arguments: [ArgumentSpec(name: "<command>", help: "The program to run, then its arguments (after --).")],
        options: [
            OptionSpec(names: ["--until"], valueName: "milestone",
                       help: "Where timing stops: main, first-output (default), exit, or a function name."),
            OptionSpec(names: ["--function"], valueName: "symbol",
                       help: "Also time this function (mangled or demangled name). Repeatable.", repeatable: true),
            OptionSpec(names: ["--max-calls"], valueName: "n",
                       help: "Stop timing a function after n calls; shown as '≥ n' (default 100)."),
            OptionSpec(names: ["--runs"], valueName: "n", help: "Measured runs (default 5)."),
            OptionSpec(names: ["--warmup"], valueName: "n", help: "Runs before measuring, not counted (default 1)."),
            OptionSpec(names: ["--cpu"], valueName: "n", help: "Pin the command and the tracer to this CPU (one premain may run on)."),
            OptionSpec(names: ["--allow-idle"], valueName: nil,
                       help: "Do not hold /dev/cpu_dma_latency at 0 (idle CPUs may halt, and each stop then waits for a wake-up)."),
            OptionSpec(names: ["--debug-dir"], valueName: "path",
                       help: "Look for separate debug files here first (build-id and debuglink). Repeatable.",
                       repeatable: true),
            OptionSpec(names: ["--bias-ms"], valueName: "ms", help: "Use this bias instead of measuring it."),
            OptionSpec(names: ["--timeout"], valueName: "seconds", help: "Kill a run after this long (default 30)."),
            OptionSpec(names: ["--show-output"], valueName: nil,
                       help: "Let the command write to premain's stdout and stderr (default: /dev/null)."),
            OptionSpec(names: ["--inherit-stdin"], valueName: nil, help: "Give the command premain's stdin instead of /dev/null."),
            OptionSpec(names: ["--all"], valueName: nil, help: "List toolchain initializers under 0.01 ms too."),
            OptionSpec(names: ["-f", "--format"], valueName: "format", help: "Output format: text (default), json or html (one self-contained page with the flame chart)."),
            OptionSpec(names: ["-o", "--output"], valueName: "path", help: "Write the report to this file instead of stdout."),
            OutputWidth.option,
            TraceExport.option,
        ],
        acceptsPassthrough: true)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = try arguments.choice("--format", ["text", "json", "html"], default: "text")
        let command = arguments.passthrough.isEmpty ? arguments.positionals : arguments.passthrough
        guard !command.isEmpty else { throw UsageError(message: "missing expected argument '<command>'") }
        var options = TraceOptions(command: command, environment: ProcessEnvironment.current())
        options.until = TraceWindowEnd(argument: arguments.value("--until") ?? "first-output")
        if case .symbol(let name) = options.until, name.isEmpty {
            throw UsageError(message: "--until takes main, first-output, exit or a function name, not ''")
        }
        options.functions = arguments.all("--function")
        if options.functions.contains(where: \.isEmpty) { throw UsageError(message: "--function takes a symbol name, not ''") }
        options.maxCalls = try arguments.integer("--max-calls", default: 100, in: 1...1_000_000)
        options.runs = try arguments.integer("--runs", default: 5, in: 1...10_000)
        options.warmup = try arguments.integer("--warmup", default: 1, in: 0...1_000)
        options.debugDirectories = arguments.all("--debug-dir")
        options.timeoutSeconds = try arguments.number("--timeout", default: 30, in: 0.1...86_400)
        if arguments.value("--cpu") != nil {
            let cpu = try arguments.integer("--cpu", default: 0, in: 0...4095)
            let allowed = CPUPinning.allowedCPUs()
            guard allowed.isEmpty || allowed.contains(cpu) else {
                throw UsageError(message: "--cpu \(cpu) is not a CPU this process may run on (allowed: \(allowed.map(String.init).joined(separator: ", ")))")
            }
            options.cpu = Int32(cpu)
        }
        if arguments.flag("--allow-idle") {
            options.holdIdleLatency = false
        }
        if arguments.value("--bias-ms") != nil {
            options.biasMs = try arguments.number("--bias-ms", default: 0, in: 0...1_000)
        }
        options.calibration = TraceCalibration.target
        options.keepTimelines = TraceExport.path(arguments) != nil || format == "html"
        var devNull: Int32 = -1
        if !arguments.flag("--show-output") {
            devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
            options.outputFD = devNull
        }
        defer { if devNull >= 0 { close(devNull) } }
        var stdinNull: Int32 = -1
        if !arguments.flag("--inherit-stdin") {
            stdinNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
            options.stdinFD = stdinNull
        }
        defer { if stdinNull >= 0 { close(stdinNull) } }
        if let problem = LaunchGuard.installSignalHandlers() { Console.error(problem) }
        let progress = ProgressBar.onTerminal("trace")
        var report: TraceReport
        do {
            report = try Tracer(options: options).run { step in progress?.update(step) }
        } catch {
            progress?.finish()
            Console.error(error.description)
            switch error {
            case .unsupportedArchitecture: return .internalError
            case .noCommand, .commandNotFound: return .inputError
            default: return .targetFailed
            }
        }
        progress?.finish()
        guard TraceExport.write(arguments, { () throws -> String in try TraceEventRenderer.render(report) }) else {
            return .internalError
        }
        if format != "html" {  // the call timelines were kept for the trace file or the page only
            for index in report.measurements.indices { report.measurements[index].timelines = nil }
        }
        let written = Console.emit(to: arguments.value("--output")) { () throws -> String in
            switch format {
            case "json": return try JSONRenderer.render(report)
            case "html": return HTMLReportRenderer.render(report)
            default: return TraceTextRenderer.render(report, all: arguments.flag("--all"), width: OutputWidth.resolve(arguments))
            }
        }
        guard written else { return .internalError }
        for measurement in report.measurements {
            for failure in measurement.failures ?? [] { Console.error("\(measurement.command[0]): \(failure)") }
        }
        let failed = report.measurements.flatMap(\.outcomes).contains { !$0.succeeded }
        return failed ? .targetFailed : .success
    }
}
