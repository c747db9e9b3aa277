/// Every completed traced call of one counted run, in the order the calls began: what
/// `--export-trace` and the HTML flame chart draw. Kept only when asked for
/// (`TraceMeasurement.timelines` is `nil` otherwise), since a long start-up makes thousands.
public struct TraceRunTimeline: Codable, Equatable, Sendable {
    /// Index of the run among the counted runs (warm-up runs excluded), from 0.
    public var run: Int
    /// Completed calls, sorted by start time (an outer call before the calls inside it).
    public var calls: [TraceCallSlice]
    /// Milestones this run reached, in ms since birth: "main", "firstOutput", "exit", or the
    /// `--until` symbol. `[:]` when none was reached.
    public var milestones: [String: Double]

    public init(run: Int, calls: [TraceCallSlice], milestones: [String: Double]) {
        self.run = run
        self.calls = calls
        self.milestones = milestones
    }
}

/// One completed call of a traced function in one run, as the tracer saw it on the run's clock:
/// its start and end include the tracer's stops (so the calls of a thread nest exactly), and
/// `inclusiveMs` is the same call with the tracer's cost removed.
public struct TraceCallSlice: Codable, Equatable, Sendable {
    /// The thread (Linux tid) that made the call; the process's pid for its main thread.
    public var thread: Int32
    /// Path of the object the function is in.
    public var object: String
    /// The mangled symbol, as in `TracedFunction.symbol`.
    public var symbol: String
    /// Link-time address of the function's first instruction in `object`.
    public var address: UInt64
    /// ms since process birth when the call began (the thread resumed after the entry stop).
    public var startMs: Double
    /// ms from the start to the return stop, tracer stops inside included.
    public var durationMs: Double
    /// The call's time with the tracer's bias and handling removed (what the hot list adds up).
    public var inclusiveMs: Double
    /// Traced calls of this thread open around it (0 for an outermost call).
    public var depth: Int

    public init(
        thread: Int32, object: String, symbol: String, address: UInt64, startMs: Double, durationMs: Double,
        inclusiveMs: Double, depth: Int
    ) {
        self.thread = thread
        self.object = object
        self.symbol = symbol
        self.address = address
        self.startMs = startMs
        self.durationMs = durationMs
        self.inclusiveMs = inclusiveMs
        self.depth = depth
    }

    /// `startMs + durationMs`.
    public var endMs: Double { startMs + durationMs }
}

extension TraceMeasurement {
    /// The timed function a slice is a call of (same object and symbol); `nil` when the hot
    /// list has no such function (a hand-built report).
    public func function(of slice: TraceCallSlice) -> TracedFunction? {
        // Two functions of one object may share a name: the address tells them apart.
        let address = "0x" + String(slice.address, radix: 16)
        return functions.first {
            $0.object == slice.object && $0.symbol == slice.symbol && ($0.address ?? address) == address
        }
    }
}
