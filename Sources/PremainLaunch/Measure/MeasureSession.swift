import PremainModel

/// Runs `premain measure` for one command: warm-ups, then counted runs of the instrumented
/// series interleaved with the uninstrumented series (ABBA order, so drift hits both alike),
/// cold eviction before every run when asked, CPU pinning, and the statistics.
public struct MeasureSession: Sendable {
    public let launcher: any Launcher
    public var builder = MeasurementBuilder()

    public init(launcher: any Launcher) {
        self.launcher = launcher
    }

    /// What `premain measure` gets: the measurement and, under `options.instructionCounter`,
    /// its instruction counts in it; a count that failed leaves the timings and says why.
    public struct Outcome: Sendable {
        public var measurement: LaunchMeasurement
        public var instructionFailure: InstructionCountError?
    }

    /// `measure`, then one run under callgrind when `options.instructionCounter` is set.
    /// valgrind is looked for before any launch: without it nothing is run
    /// (`MeasureError.instructionCountFailed`).
    public func run(
        command: [String], environment: [String], options: MeasureOptions,
        progress: (LaunchProgress) -> Void = { _ in }
    ) throws(MeasureError) -> Outcome {
        if let counter = options.instructionCounter {
            do {
                _ = try counter.locateValgrind(environment: environment)
            } catch {
                throw .instructionCountFailed(error)
            }
        }
        var outcome = Outcome(
            measurement: try measure(
                command: command, environment: environment, options: options,
                progress: progress))
        if let counter = options.instructionCounter {
            do {
                outcome.measurement.instructions = try counter.count(
                    command: command, environment: environment,
                    timeoutSeconds: options.timeoutSeconds)
            } catch {
                outcome.instructionFailure = error
            }
        }
        return outcome
    }

    /// Measures `command` (`command[0]` is looked up in the PATH of `environment` unless it
    /// holds a slash) with `environment` passed through. Calls `progress` after every launch.
    /// Throws `MeasureError` when the command cannot be found or a launch cannot be set up;
    /// failures of the target itself are part of the `LaunchMeasurement`.
    public func measure(
        command: [String], environment: [String], options: MeasureOptions,
        progress: (LaunchProgress) -> Void = { _ in }
    ) throws(MeasureError) -> LaunchMeasurement {
        guard let name = command.first, !name.isEmpty else { throw .noCommand }
        guard let executable = CommandResolver.executable(for: name, environment: environment) else {
            throw .commandNotFound(name)
        }
        let target = TargetProbe.probe(executable)
        let instrument = target.glibcLoader
        let pinning = CPUPinning.plan(requested: options.pin)
        let runs = max(1, options.runs)
        let warmup = max(0, options.warmup)
        // Without loader lines an uninstrumented run cannot see main, so it could not stop there.
        let withPlain = options.observerSeries && instrument && options.stop != .main
        if options.stop == .main && !instrument {
            throw .cannotStop(name, target.loaderPhasesMissing ?? "its loader prints no LD_DEBUG lines")
        }

        var overrides: [String] = []
        if instrument {
            overrides.append(LoaderDebugChannels.environmentEntry)
            overrides.append("LD_DEBUG_OUTPUT=<private folder>/ld-debug (a FIFO; glibc appends .PID)")
        }
        for variable in ["LD_DEBUG", "LD_DEBUG_OUTPUT"] {
            if let old = environment.first(where: { $0.hasPrefix(variable + "=") }) {
                overrides.append("\(old) removed")
            }
        }
        let baseConditions = MachineProbe.conditions(
            pinning: pinning, runs: runs, warmup: warmup, cold: options.cold, binaryPath: executable,
            buildID: target.buildID, environmentOverrides: overrides,
            stdin: options.stdinPath ?? (options.inheritStdin ? "premain's own (--inherit-stdin)" : "/dev/null"))

        let coldObjects =
            options.cold
            ? LoadedObjectDiscovery.objects(
                executable: executable, interpreter: target.interpreter, glibcLoader: target.glibcLoader,
                environment: environment, launcher: launcher) : []

        func request(instrumented: Bool) -> LaunchRequest {
            LaunchRequest(
                executablePath: executable, arguments: command, environment: environment,
                instrumented: instrumented, targetCPU: pinning.targetCPU,
                timeoutSeconds: options.timeoutSeconds, output: options.output, stop: options.stop,
                inheritStdin: options.inheritStdin, stdinPath: options.stdinPath,
                workingDirectory: options.workingDirectory)
        }
        let perRound = withPlain ? 2 : 1
        let total = (warmup + runs) * perRound
        var done = 0
        var samples: [LaunchSample] = []
        var plain: [LaunchSample] = []
        var residency: [[PageCacheEvictor.Residency]] = []

        let ((_, scheduling), idleLatency) = try IdleLatencyGuard.run(requested: options.holdIdleLatency) {
            () throws(MeasureError) in
            try MeasurerScheduling.run(requested: options.realtimeMeasurer) { () throws(MeasureError) in
                try pinning.withMeasurerPinned { () throws(MeasureError) in
                    func launch(instrumented: Bool) throws(MeasureError) -> (LaunchSample, [PageCacheEvictor.Residency])
                    {
                        let evicted = options.cold ? PageCacheEvictor.evict(coldObjects) : []
                        let sample: LaunchSample
                        do {
                            sample = try launcher.launch(request(instrumented: instrumented))
                        } catch {
                            throw .launchFailed(command: name, error)
                        }
                        done += 1
                        progress(LaunchProgress(completed: done, total: total))
                        return (sample, evicted)
                    }
                    for round in 0..<(warmup + runs) {
                        let counted = round >= warmup
                        // ABBA: even rounds instrumented first, odd rounds uninstrumented first.
                        let order = withPlain ? (round % 2 == 0 ? [true, false] : [false, true]) : [instrument]
                        for instrumented in order {
                            let (sample, evicted) = try launch(instrumented: instrumented)
                            guard counted else { continue }
                            if instrumented || !withPlain {
                                samples.append(sample)
                                residency.append(evicted)
                            } else {
                                plain.append(sample)
                            }
                        }
                    }
                }
            }
        }
        var conditions = baseConditions
        conditions.measurerScheduling = scheduling
        conditions.cpuIdleLatency = idleLatency
        var measurement = builder.build(
            command: command, executablePath: executable, warmup: warmup, cold: options.cold,
            conditions: conditions, loaderPhasesMissing: target.loaderPhasesMissing,
            samples: samples, plain: plain, residency: residency)
        measurement.launch = options.launch
        if options.keepRawSamples { measurement.rawSamples = samples }
        if options.objectFacts {
            measurement.attach(facts: ObjectFactsReader.facts(for: measurement.objects.map(\.path)))
        }
        return measurement
    }
}

/// How `MeasureSession` runs a series.
public struct MeasureOptions: Sendable {
    /// Counted runs per series (at least 1).
    public var runs: Int = 10
    /// Uncounted runs before the counted ones, per series.
    public var warmup: Int = 1
    /// Evict the executable and its closure from the page cache before every run.
    public var cold: Bool = false
    /// Seconds before a run is killed; `nil` for no limit.
    public var timeoutSeconds: Double?
    /// Also run an uninstrumented series (no `LD_DEBUG`) for the observer effect.
    public var observerSeries: Bool = true
    /// Pin the measurer and the target to different CPUs when there are two or more.
    public var pin: Bool = true
    /// Run the measuring thread at SCHED_FIFO when permitted (see `MeasurerScheduling`).
    public var realtimeMeasurer: Bool = true
    /// Hold /dev/cpu_dma_latency at 0 during the series (see `IdleLatencyGuard`).
    public var holdIdleLatency: Bool = true
    /// Keep every counted run's `LaunchSample` in `LaunchMeasurement.rawSamples`.
    public var keepRawSamples: Bool = false
    /// Where the target's output goes.
    public var output: LaunchRequest.OutputHandling = .discard
    /// Where each run ends early and still counts as good (`--until`, `--ready`); `nil` runs
    /// to exit.
    public var stop: StopCondition?
    /// Hand premain's stdin to the target instead of /dev/null (`--inherit-stdin`).
    public var inheritStdin: Bool = false
    /// A file the target reads as stdin (a declared launch's `stdin`); `nil`: /dev/null.
    public var stdinPath: String?
    /// The folder the target starts in (a declared launch's `cwd`); `nil`: premain's own.
    public var workingDirectory: String?
    /// The declared launch this series measures, written as `LaunchMeasurement.launch`;
    /// `nil` for the command line's unnamed launch.
    public var launch: String?
    /// Read each measured object's relocation and symbol counts from its file (`ObjectFactsReader`).
    public var objectFacts: Bool = true
    /// Count instructions in one more run under callgrind (`--instructions`); `nil`: none.
    public var instructionCounter: InstructionCounter?

    public init(
        runs: Int = 10, warmup: Int = 1, cold: Bool = false, timeoutSeconds: Double? = nil,
        observerSeries: Bool = true, pin: Bool = true, realtimeMeasurer: Bool = true,
        output: LaunchRequest.OutputHandling = .discard
    ) {
        self.runs = runs
        self.warmup = warmup
        self.cold = cold
        self.timeoutSeconds = timeoutSeconds
        self.observerSeries = observerSeries
        self.pin = pin
        self.realtimeMeasurer = realtimeMeasurer
        self.output = output
    }
}

/// Why a measurement could not be made at all. Failures of the target itself (exit status,
/// signal, missing library, failed exec, timeout) are outcomes in the `LaunchMeasurement`.
public enum MeasureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command line is empty.
    case noCommand
    /// `command[0]` names no executable file (searched in PATH when it holds no slash).
    case commandNotFound(String)
    /// A launch of the command could not be set up (no pipe, no FIFO, fork failed).
    case launchFailed(command: String, LaunchError)
    /// `--instructions`: valgrind is missing, or (compare) a build's instructions could not be counted.
    case instructionCountFailed(InstructionCountError)
    /// `--until main` on a program whose loader prints no lines (static, not glibc, a script).
    case cannotStop(String, String)

    /// Lowercase, no trailing period: "command not found: NAME".
    public var description: String {
        switch self {
        case .noCommand: return "no command to measure"
        case .commandNotFound(let name): return "command not found: \(name)"
        case .launchFailed(let name, let error): return "cannot launch \(name): \(error.message)"
        case .instructionCountFailed(let error): return "instructions: \(error.description)"
        case .cannotStop(let name, let why):
            return "\(name): --until main needs the loader's lines, and there are none: \(why)"
        }
    }
}
