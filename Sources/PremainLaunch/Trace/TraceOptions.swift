import PremainAudit
import PremainModel

/// Everything `premain trace` needs to know, already validated by the command line.
public struct TraceOptions: Sendable {
    /// argv of the target; `command[0]` is resolved through PATH when it has no slash.
    public var command: [String]
    /// Environment of the target as "NAME=value" (premain's own when built by the CLI).
    public var environment: [String]
    /// Where timing stops (`--until`, default first output).
    public var until: TraceWindowEnd = .firstOutput
    /// Calls after which a function is no longer timed (`--max-calls`).
    public var maxCalls: Int = 100
    /// `--function`: mangled or demangled names (with or without the parameter list).
    public var functions: [String] = []
    /// Measured runs (`--runs`).
    public var runs: Int = 5
    /// Runs before the measured ones, not counted (`--warmup`).
    public var warmup: Int = 1
    /// Pin the target (and the calibration) to this CPU.
    public var cpu: Int32?
    /// `--debug-dir`: searched before /usr/lib/debug for separate debug files.
    public var debugDirectories: [String] = []
    /// Each run is killed after this many seconds.
    public var timeoutSeconds: Double = 30
    /// A bias to use instead of measuring one (`--bias-ms`).
    public var biasMs: Double?
    /// The empty function traced at start to measure the bias; required when `biasMs` is nil.
    public var calibration: CalibrationTarget?
    /// Descriptor for the target's stdout/stderr (-1: premain's own).
    public var outputFD: Int32 = -1
    /// Hold `/dev/cpu_dma_latency` at 0 during calibration and runs (`IdleLatencyGuard`), so a
    /// stop does not wait for a halted CPU to wake (`--allow-idle` turns it off).
    public var holdIdleLatency = true

    public init(command: [String], environment: [String]) {
        self.command = command
        self.environment = environment
    }
}

/// A program that calls an empty function `calls` times, traced to measure the bias.
public struct CalibrationTarget: Sendable {
    /// The program (an absolute path).
    public var executable: String
    /// Its argv, including argv[0].
    public var arguments: [String]
    /// The empty function, as `--function` takes it.
    public var symbol: String
    /// How many times the program calls it.
    public var calls: Int

    public init(executable: String, arguments: [String], symbol: String, calls: Int) {
        self.executable = executable
        self.arguments = arguments
        self.symbol = symbol
        self.calls = calls
    }
}
