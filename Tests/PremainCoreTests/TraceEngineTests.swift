import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PremainCore

@Suite(.serialized)
struct TraceEngineTests {
    @Test func debugRun() throws {
        let built = TraceSamples.built
        try #require(built.failure == nil, "\(built.failure ?? "")")
        let log = built.path("debug.log")
        unlink(log)
        var options = TraceOptions(command: [built.path("cxx-static-init/cxx-static-init")],
                                   environment: TraceSamples.environment + ["PREMAIN_SAMPLE_LOG=\(log)"])
        options.calibration = TraceSamples.calibration
        options.runs = 1
        options.warmup = 0
        let report = try Tracer(options: options).run()
        print(report.bias)
        for m in report.measurements {
            print(m.outcomes, m.milestones.mapValues(\.medianMs), m.notes)
            for f in m.functions { print(f.object, f.demangled ?? f.symbol, f.kind, f.callsText, f.inclusive.medianMs, f.source?.description ?? "-") }
        }
        print(TraceSamples.selfTimes(log))
    }
}
