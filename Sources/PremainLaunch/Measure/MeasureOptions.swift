import PremainAudit
import PremainModel

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

    public init(runs: Int = 10, warmup: Int = 1, cold: Bool = false, timeoutSeconds: Double? = nil,
                observerSeries: Bool = true, pin: Bool = true, realtimeMeasurer: Bool = true, output: LaunchRequest.OutputHandling = .discard) {
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
