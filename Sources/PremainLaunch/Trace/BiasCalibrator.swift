import PremainAudit
import PremainModel

/// Measures what one breakpoint pair costs on this machine, by tracing an empty function the
/// same way as real ones.
public enum BiasCalibrator {
    /// Traces `target` `rounds` times and returns the lowest of the rounds' median round trips
    /// (the first tenth of each round's calls is dropped as cold). Unpinned, the scheduler puts
    /// tracer and target on one CPU or on two from one launch to the next, and the round trip
    /// differs (about 9 µs against 30 µs here); the lowest median never removes more than a
    /// stop costs. Throws when the function was never called.
    public static func measure(_ target: CalibrationTarget, cpu: Int32?, environment: [String],
                               rounds: Int = 3) throws(TraceError) -> TraceBias {
        var best: TraceBias?
        for _ in 0..<max(1, rounds) {
            let round = try measureOnce(target, cpu: cpu, environment: environment)
            if best == nil || round.pairMs < best?.pairMs ?? 0 { best = round }
        }
        guard let best else { throw .noCalibrationTarget("no round") }
        return best
    }

    static func measureOnce(_ target: CalibrationTarget, cpu: Int32?, environment: [String]) throws(TraceError) -> TraceBias {
        let planner = ProbePlanner(functionQueries: [target.symbol], untilSymbol: nil,
                                   debugLocator: DebugFileLocator())
        let session = TraceSession(
            configuration: .init(executable: target.executable, arguments: target.arguments, environment: environment,
                                 until: .exit, maxCalls: target.calls + 1, cpu: cpu, outputFD: -1, timeoutSeconds: 30),
            planner: planner)
        let record = try session.run()
        let calls = record.functions.values.filter { $0.probe.symbol == target.symbol || $0.probe.kind == .named }
            .flatMap(\.calls)
        guard calls.count >= 5 else {
            throw .noCalibrationTarget("\(target.symbol) in \(target.executable) was called \(calls.count) times")
        }
        let warm = Array(calls.dropFirst(calls.count / 10))
        let raw = warm.map { Double($0.rawNs) / 1e6 }
        let cost = warm.map { Double($0.rawNs + $0.handlingNs) / 1e6 }
        guard let pair = SampleStatistics.median(raw), let perCall = SampleStatistics.median(cost) else {
            throw .noCalibrationTarget("no samples")
        }
        // A traced call stops twice: the unseen halves of both stops add up to one more pair.
        return TraceBias(pairMs: pair, costPerCallMs: perCall + pair, source: "measured", calibrationCalls: warm.count)
    }
}
