/// Everything one launch produced. Times are milliseconds since process birth: the measuring
/// process's CLOCK_MONOTONIC read immediately before it let the forked child call `execve`.
public struct LaunchSample: Codable, Equatable, Sendable {
    /// Which output stream a byte came from.
    public enum Stream: String, Codable, Sendable {
        case stdout, stderr
    }

    /// Process birth as an absolute CLOCK_MONOTONIC time in nanoseconds (to line up with
    /// self-timing logs written by the target).
    public var birthNs: UInt64
    /// The target's pid, which is also its process group id (0 for fakes).
    public var processGroup: Int32
    /// True when the launch ran with `LD_DEBUG`.
    public var instrumented: Bool
    /// The loader's lines; `nil` when uninstrumented or when the loader printed nothing
    /// (static or non-glibc binaries).
    public var loader: LoaderTimeline?
    /// When the first byte of stdout or stderr reached the measuring process. `nil` when the
    /// program wrote nothing.
    public var firstOutputMs: Double?
    public var firstOutputStream: Stream?
    /// When the process was seen to end (its pidfd turned readable). `nil` after a timeout.
    public var exitMs: Double?
    public var outcome: LaunchOutcome
    /// The target's own user + system CPU time (from wait4), in ms; `nil` when unknown. Less
    /// sensitive to other load than wall time, so it shows the observer effect on busy machines.
    public var cpuMs: Double?
    /// The first bytes of stderr (at most 2 KiB), kept to explain failures.
    public var stderrHead: String

    public init(birthNs: UInt64, processGroup: Int32 = 0, instrumented: Bool, loader: LoaderTimeline?, firstOutputMs: Double?,
                firstOutputStream: Stream?, exitMs: Double?, outcome: LaunchOutcome, stderrHead: String) {
        self.birthNs = birthNs
        self.processGroup = processGroup
        self.instrumented = instrumented
        self.loader = loader
        self.firstOutputMs = firstOutputMs
        self.firstOutputStream = firstOutputStream
        self.exitMs = exitMs
        self.outcome = outcome
        self.stderrHead = stderrHead
    }
}
