import PremainAudit
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
        discussion: """
            Runs the command under ptrace and plants breakpoints on every .preinit_array, .init_array, \
            .ctors and DT_INIT entry of every object as the loader maps it, on every Swift lazy-global \
            initializer (…WZ) and default-argument generator (…fA_, with inlined copies found through \
            DWARF), and on every \(function). Each call is timed from entry to return; the tracer's own \
            cost per breakpoint pair is measured at start on an empty function and subtracted. \
            First output is the first call of libc write/writev on fd 1 or 2 (direct system calls are \
            not seen). When the milestone is reached premain kills the command's process group. \
            stdin is /dev/null unless \(LaunchSettingsOptions.inheritStdin). Functions are keyed by object and address: two \
            functions with one name are two rows, shown with their address. An IFUNC symbol times its \
            resolver, and is marked so. Exit status \(ExitCode.inputError) when the command is not found, \(ExitCode.targetFailed) when a run \
            failed (each failure explained on stderr) or the command cannot be started. The ptrace engine knows \
            x86-64 only: on any other machine trace prints 'trace is supported on x86-64 only' and \
            exits \(ExitCode.internalError). \(MatrixOptions.launch) NAME traces one launch of premain.json's \
            launches instead of a command: its program (looked up in PATH unless it holds a slash), \
            arguments, environment and end (main, first-output, exit or a function).
            """,
        passthrough: Passthrough(first: command),
        options: [until, function, runs, TraceExport.option, MatrixOptions.launch],
        moreOptions: [
            maxCalls, LaunchSettingsOptions.warmup, cpu, LaunchSettingsOptions.allowIdle, debugDir, biasMs,
            LaunchSettingsOptions.timeout, showOutput, LaunchSettingsOptions.inheritStdin, all, format,
            OutputOptions.output, OutputWidth.option, ConfigOptions.config, ConfigOptions.noConfig,
        ])

    static let command = ArgumentSpec(
        name: "<command>", help: "The program to run, then its arguments (after --).", kind: .command)

    enum Format: String, OptionChoice {
        case text, json, html

        var note: String? { self == .html ? "one self-contained page with the flame chart" : nil }
    }

    static let until = Option<String?>(
        "--until", value: "milestone",
        help: "Where timing stops: main, first-output (default), exit, or a function name")
    static let function = Option<[String]>.repeating(
        "--function", value: "symbol", help: "Also time this function (mangled or demangled name). Repeatable")
    static let maxCalls = Option<Int>(
        "--max-calls", value: "n", help: "Stop timing a function after n calls; shown as '≥ n'", default: 100,
        in: 1...1_000_000)
    static let runs = Option<Int>("--runs", value: "n", help: "Measured runs", default: 5, in: 1...10_000)
    static let cpu = Option<Int?>(
        "--cpu", value: "n", help: "Pin the command and the tracer to this CPU, one premain may run on", in: 0...4095)
    static let debugDir = Option<[String]>.repeating(
        "--debug-dir", value: "path", kind: .path(.folder),
        help: "Look for separate debug files here first (build-id and debuglink). Repeatable")
    static let biasMs = Option<Double?>(
        "--bias-ms", value: "ms", help: "Use this bias instead of measuring it", in: 0...1_000)
    static let showOutput = Option.flag(
        "--show-output", help: "Let the command write to premain's stdout and stderr (default: /dev/null)")
    static let all = Option.flag("--all", help: "List toolchain initializers under 0.01 ms too")
    static let format = OutputOptions.format(default: Format.text)

    /// Every file trace writes: the report and the trace-event file.
    static let outputs = [OutputOptions.output, TraceExport.option]

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = arguments[format]
        let given = arguments.passthrough
        let launch = try declaredLaunch(arguments, commandLine: given)
        let command = launch?.run ?? given
        guard !command.isEmpty else {
            throw UsageError(
                message: "missing expected argument '<command>' after '--', or \(MatrixOptions.launch) NAME")
        }
        let environment = ProcessEnvironment.current()
        var options = TraceOptions(command: command, environment: launch?.environment(over: environment) ?? environment)
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs,
            inputs: OutputOptions.commandFiles(command, options.environment)
                + [launch == nil ? nil : ConfigOptions.file(arguments)].compactMap { $0 })
        options.until = TraceWindowEnd(argument: arguments[until] ?? launch.map(Self.end) ?? "first-output")
        if case .symbol(let name) = options.until, name.isEmpty {
            throw UsageError(message: "\(until) takes main, first-output, exit or a function name, not ''")
        }
        options.functions = arguments[function]
        if options.functions.contains(where: \.isEmpty) {
            throw UsageError(message: "\(function) takes a symbol name, not ''")
        }
        options.maxCalls = arguments[maxCalls]
        options.runs = arguments[runs]
        options.warmup = arguments[LaunchSettingsOptions.warmup]
        options.debugDirectories = arguments[debugDir]
        options.timeoutSeconds = arguments[LaunchSettingsOptions.timeout]
        if let cpu = arguments[cpu] {
            let allowed = CPUPinning.allowedCPUs()
            guard allowed.isEmpty || allowed.contains(cpu) else {
                throw UsageError(
                    message:
                        "\(Self.cpu) \(cpu) is not a CPU this process may run on (allowed: \(allowed.map(String.init).joined(separator: ", ")))"
                )
            }
            options.cpu = Int32(cpu)
        }
        options.holdIdleLatency = !arguments[LaunchSettingsOptions.allowIdle]
        options.biasMs = arguments[biasMs]
        options.calibration = TraceCalibration.target
        options.keepTimelines = TraceExport.path(arguments) != nil || format == .html
        var devNull: Int32 = -1
        if !arguments[showOutput] {
            devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
            options.outputFD = devNull
        }
        defer { if devNull >= 0 { close(devNull) } }
        var stdinNull: Int32 = -1
        if !arguments[LaunchSettingsOptions.inheritStdin] {
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
        if let warning = DebugInfo.unavailableWarning { Console.warning(warning) }
        // Both files are written whichever fails.
        let exported = TraceExport.write(arguments, { () throws -> String in try TraceEventRenderer.render(report) })
        if format != .html {  // the call timelines were kept for the trace file or the page only
            for index in report.measurements.indices { report.measurements[index].timelines = nil }
        }
        let written = Console.emit(to: arguments[OutputOptions.output]) { () throws -> String in
            switch format {
            case .json: return try JSONRenderer.render(report)
            case .html: return HTMLReportRenderer.render(report)
            case .text:
                return TraceTextRenderer.render(report, all: arguments[all], width: OutputWidth.resolve(arguments))
            }
        }
        guard written, exported else { return .internalError }
        for measurement in report.measurements {
            for failure in measurement.failures ?? [] { Console.error("\(measurement.command[0]): \(failure)") }
        }
        let failed = report.measurements.flatMap(\.outcomes).contains { !$0.succeeded }
        return failed ? .targetFailed : .success
    }

    /// The launch of premain.json that `--launch NAME` names; `nil` for a command. One launch
    /// at a time (trace follows one process); `--until` still overrides its end.
    static func declaredLaunch(_ arguments: ParsedArguments, commandLine: [String]) throws(UsageError)
        -> DeclaredLaunch?
    {
        let names = arguments[MatrixOptions.launch]
        guard !names.isEmpty else { return nil }
        guard commandLine.isEmpty else {
            throw UsageError(message: "\(MatrixOptions.launch) picks premain.json's launches; drop the command")
        }
        guard names.count == 1, let name = names.first else {
            throw UsageError(message: "trace follows one launch at a time: give \(MatrixOptions.launch) once")
        }
        let declared = try ConfigOptions.load(arguments).launches
        guard let launch = declared.first(where: { $0.name == name }) else {
            let known = declared.map { "'\($0.name)'" }.joined(separator: ", ")
            throw UsageError(
                message: "no launch '\(name)' in premain.json"
                    + (known.isEmpty ? " (it declares none)" : "; it declares \(known)"))
        }
        if case .ready = launch.until, arguments[until] == nil {
            throw UsageError(
                message:
                    "launch '\(name)' ends at a ready line, which trace does not watch; give \(until) main, first-output, exit or a function"
            )
        }
        return launch
    }

    /// `--until`'s word for a launch's end.
    static func end(_ launch: DeclaredLaunch) -> String {
        switch launch.until {
        case .main: return "main"
        case .firstOutput: return "first-output"
        case .exit, .ready: return "exit"
        case .function(let name): return name
        }
    }
}
