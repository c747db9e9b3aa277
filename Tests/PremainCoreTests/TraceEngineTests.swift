import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PremainCore

@Suite(.serialized)
struct TraceEngineTests {
    @Test(arguments: ["cxx-static-init/cxx-static-init", "swift-startup/swift-startup", "swift-startup/swift-startup-O", "faults/crash-in-init", "faults/spawn-threads", "faults/forks-in-init"])
    func debugRun(sample: String) throws {
        let built = TraceSamples.built
        try #require(built.failure == nil, "\(built.failure ?? "")")
        let log = built.path("debug.log")
        unlink(log)
        var options = TraceOptions(command: [built.path(sample)],
                                   environment: TraceSamples.environment + ["PREMAIN_SAMPLE_LOG=\(log)"] + (getenv("DBG_ENV").map { [String(cString: $0)] } ?? []))
        options.calibration = TraceSamples.calibration
        options.runs = Int(getenv("DBG_RUNS").map { String(cString: $0) } ?? "1") ?? 1
        options.warmup = 0
        let report = try Tracer(options: options).run()
        print(report.bias)
        for m in report.measurements {
            print(m.untimed, m.outcomes, m.milestones.mapValues(\.medianMs), m.notes)
            for f in m.functions where f.inclusive.medianMs > 0.04 || f.kind != .staticInitializer { print(f.object, f.demangled ?? f.symbol, f.kind, f.callsText, f.inclusive.medianMs, f.source?.description ?? "-") }
        }
        print(TraceSamples.selfTimes(log))
    }
}
