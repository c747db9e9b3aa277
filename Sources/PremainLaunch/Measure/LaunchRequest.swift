import PremainAudit
import PremainModel

/// One launch to perform.
public struct LaunchRequest: Sendable {
    /// Where the target's stdout and stderr bytes go once their arrival time is taken.
    public enum OutputHandling: Sendable {
        /// Dropped.
        case discard
        /// Handed to the consumer as they arrive (the CLI writes them to its own stdout/stderr).
        case forward(@Sendable (LaunchSample.Stream, [UInt8]) -> Void)
    }

    /// The executable to `execve` (an absolute or relative path, no PATH search).
    public var executablePath: String
    /// `argv`, including `argv[0]`.
    public var arguments: [String]
    /// The complete environment as `NAME=value` strings.
    public var environment: [String]
    /// Adds `LD_DEBUG=files,statistics` and `LD_DEBUG_OUTPUT` (a FIFO read by the launcher).
    public var instrumented: Bool
    /// CPU to pin the target to, or `nil`.
    public var targetCPU: Int?
    /// Seconds before the launch is killed, or `nil` for no limit.
    public var timeoutSeconds: Double?
    public var output: OutputHandling

    public init(executablePath: String, arguments: [String], environment: [String],
                instrumented: Bool, targetCPU: Int? = nil, timeoutSeconds: Double? = nil,
                output: OutputHandling = .discard) {
        self.executablePath = executablePath
        self.arguments = arguments
        self.environment = environment
        self.instrumented = instrumented
        self.targetCPU = targetCPU
        self.timeoutSeconds = timeoutSeconds
        self.output = output
    }
}
