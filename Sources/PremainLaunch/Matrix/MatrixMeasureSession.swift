import PremainModel

/// A row of the launch matrix made ready to launch: its end read as a stop condition (a bad
/// `ready` pattern is refused here, before any launch).
public struct PlannedRow: Sendable {
    public var row: LaunchRow
    public var stop: StopCondition?

    /// Throws the pattern's error when `row`'s end is a `ready` pattern premain cannot match.
    public init(_ row: LaunchRow) throws(PatternError) {
        self.row = row
        switch row.launch.until {
        case .main: stop = .main
        case .firstOutput: stop = .firstOutput
        case .exit: stop = nil
        case .ready(let pattern): stop = .ready(try OutputPattern(pattern))
        case .function(let name): stop = .symbol(name)
        }
    }

    public var name: String { row.launch.name }
    public var cold: Bool { row.temperature == .cold }

    /// `base` set up for this row: its end, temperature, timeout (the launch's over the command
    /// line's), stdin, folder and name.
    public func options(over base: MeasureOptions) -> MeasureOptions {
        var options = base
        options.stop = stop
        options.cold = cold
        options.timeoutSeconds = row.launch.timeoutSeconds ?? base.timeoutSeconds
        options.stdinPath = row.launch.stdin
        options.workingDirectory = row.launch.workingDirectory
        options.launch = name
        return options
    }
}

/// Runs `premain measure` over the launch matrix: each row one `MeasureSession` series (its
/// own warm-ups, counted runs and, cold, eviction before every run), the rows in order.
public struct MatrixMeasureSession: Sendable {
    public let launcher: any Launcher

    public init(launcher: any Launcher) {
        self.launcher = launcher
    }

    /// One outcome per row, in `rows`' order. `environment` is premain's; each launch's `env`
    /// is set over it. `progress` is told each row's launches.
    /// Throws the first row's `MeasureError` that stops it (a program not found, a launch that
    /// cannot be set up); a failing target is part of its row's measurement.
    public func run(
        rows: [PlannedRow], environment: [String], options: MeasureOptions,
        progress: (LaunchProgress) -> Void = { _ in }
    ) throws(MeasureError) -> [MeasureSession.Outcome] {
        var outcomes: [MeasureSession.Outcome] = []
        let session = MeasureSession(launcher: launcher)
        for planned in rows {
            outcomes.append(
                try session.run(
                    command: planned.row.launch.run,
                    environment: planned.row.launch.environment(over: environment),
                    options: planned.options(over: options), progress: progress))
        }
        return outcomes
    }
}
