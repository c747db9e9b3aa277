import Foundation
import PremainModel
import PremainRender
import Testing

/// The trace renderers on a hand-built report (never a compiled binary, so the expected text
/// does not move with the compiler).
@Suite
struct TraceRendererTests {
    static let report: TraceReport = {
        func timing(_ samples: [Double]) -> TimeSummary { TimeSummary(samplesMs: samples) ?? .zero }
        var conditions = LaunchConditions(
            kernel: "6.1.0 #1 SMP", cpuModel: "Xeon", onlineCPUs: 2, allowedCPUs: [0, 1], frequencyGovernor: nil,
            loadAverage1m: 0.5, glibcVersion: "2.36",
            pinning: CPUPinning(pinned: true, measurerCPU: 1, targetCPU: 1, reason: nil),
            runs: 3, warmup: 1, cold: false, binaryPath: "/app/app", buildID: "0a1b2c", environmentOverrides: [],
            stdin: "inherited from premain", date: "2026-11-30T01:00:00Z")
        conditions.measurerScheduling = "nice -10 (the target keeps its own priority)"
        let functions = [
            TracedFunction(
                object: "/app/libinit.so", symbol: "_GLOBAL__sub_I_registry.cpp", demangled: nil,
                kind: .cxxTranslationUnitInitializer, calls: 1, callsCapped: false,
                inclusive: timing([20.1, 20.3, 20.2]), exclusive: timing([20.0, 20.2, 20.1]),
                source: SourceLocation(file: "registry.cpp", line: 25),
                inlinedInto: nil, unfinishedCalls: 0),
            TracedFunction(
                object: "/app/app", symbol: "$s3App4HomeC7serviceAcA7ServiceC_tcfcfA_",
                demangled: "default argument 0 of App.Home.init(service: App.Service) -> App.Home",
                kind: .swiftDefaultArgument, calls: 100, callsCapped: true, inclusive: timing([5, 5, 5]),
                source: SourceLocation(file: "main.swift", line: 96), inlinedInto: "App.main() -> ()",
                unfinishedCalls: 0),
            TracedFunction(
                object: "/app/app", symbol: "frame_dummy", demangled: nil, kind: .staticInitializer,
                calls: 1, callsCapped: false, inclusive: timing([0.001, 0.001, 0.001]), source: nil,
                inlinedInto: nil, unfinishedCalls: 0),
            TracedFunction(
                object: "/app/app", symbol: "crash_ctor", demangled: nil, kind: .constructorFunction,
                calls: 1, callsCapped: false, inclusive: .zero, source: nil, inlinedInto: nil,
                unfinishedCalls: 3),
        ]
        let measurement = TraceMeasurement(
            command: ["/app/app", "--flag"], runs: 3, warmup: 1, until: .firstOutput, maxCalls: 100,
            conditions: conditions, milestones: ["main": timing([30, 31, 32]), "firstOutput": timing([40, 41, 42])],
            outcomes: [.milestoneReached("first-output"), .milestoneReached("first-output"), .killedBySignal(11)],
            functions: functions,
            untimed: [
                UntimedFunction(
                    object: "/app/libx.so", symbol: "*", demangled: "every Swift lazy global and default argument",
                    kind: .swiftLazyGlobal, reason: "stripped")
            ],
            notes: ["the target called execve; tracing continued in the new image"])
        return TraceReport(
            bias: TraceBias(pairMs: 0.0085, costPerCallMs: 0.0565, source: .measured, calibrationCalls: 270),
            measurements: [measurement])
    }()

    @Test func textHotList() {
        let expected = """
            bias: 0.009 ms per breakpoint pair (measured, median of 270 calls of an empty function); each traced
              call costs the target about 0.057 ms

            command: /app/app --flag
            runs: 3 (+1 warm-up), until first-output, max 100 calls per function
            conditions: 2026-11-30T01:00:00Z, kernel 6.1.0 #1 SMP
              CPU Xeon, 2 online, allowed 0,1, governor not exposed, load 0.50
              pinned: tracer CPU 1, target CPU 1; tracer nice -10 (the target keeps its own priority)
              glibc 2.36; stdin inherited from premain; binary /app/app build-id 0a1b2c
            outcomes: 1× killed by signal 11, 2× reached first-output
            milestone main: median 31.000 ms, p90 31.800 ms, max 32.000 ms
            milestone firstOutput: median 41.000 ms, p90 41.800 ms, max 42.000 ms

                    MEDIAN        P90        MAX       SELF  CALLS
                 20.200 ms  20.280 ms  20.300 ms  20.100 ms      1
                _GLOBAL__sub_I_registry.cpp
                C++ translation-unit initializer in libinit.so (registry.cpp:25)
                  5.000 ms   5.000 ms   5.000 ms          -  ≥ 100
                `service` of App.Home.init(service:) (inlined into App.main() -> ())
                Swift default argument in app (main.swift:96)
            did not return          -          -          -      1
                crash_ctor
                constructor function in app
            (1 toolchain/static initializers under 0.010 ms not shown; --all shows them)

            not timed:
              every Swift lazy global and default argument [/app/libx.so]: stripped

            notes:
              the target called execve; tracing continued in the new image

            """
        let text = TraceTextRenderer.render(Self.report)
        #expect(text == expected, "\n\(text)")
    }

    @Test func wideKeepsWholeSignatures() {
        let wide = TraceTextRenderer.render(Self.report, width: TextFit.unlimited)
        // A default argument is named by its parameter, as in compare, pr and audit; the caller
        // it was inlined into keeps its whole signature when wide.
        #expect(wide.contains("`service` of App.Home.init(service:) (inlined into App.main() -> ())"))
        // At 60 columns the caller keeps its module, type, base name and labels.
        #expect(TraceTextRenderer.render(Self.report, width: 60).contains("App.main()"))
    }

    /// Issue 36, item 11: every line fits the width it is given (80 and 60 columns); a table that
    /// cannot fit puts each function, its object and source under its row, and the wide output
    /// still has one row per function.
    @Test func everyLineFitsTheWidth() {
        for width in [100, 80, 60] {
            let text = TraceTextRenderer.render(Self.report, all: true, width: width)
            let long = text.split(separator: "\n").filter { $0.count > width }
            #expect(long.isEmpty, "\(width) columns:\n\(long.joined(separator: "\n"))")
            #expect(text.contains("    C++ translation-unit initializer in libinit.so"), "\(text)")
        }
        #expect(TraceTextRenderer.render(Self.report, width: TextFit.unlimited).contains("FUNCTION"))
    }

    @Test func allShowsToolchainInitializers() {
        #expect(TraceTextRenderer.render(Self.report, all: true).contains("frame_dummy"))
        #expect(!TraceTextRenderer.render(Self.report).contains("frame_dummy"))
    }

    @Test func jsonRoundTripsWithTheContractKeys() throws {
        let text = try JSONRenderer.render(Self.report)
        let decoded = try JSONDecoder().decode(TraceReport.self, from: Data(text.utf8))
        #expect(decoded == Self.report)
        for key in [
            "\"measurements\"", "\"functions\"", "\"object\"", "\"symbol\"", "\"demangled\"", "\"kind\"",
            "\"calls\"", "\"inclusive\"", "\"exclusive\"", "\"medianMs\"", "\"p90Ms\"", "\"minMs\"", "\"maxMs\"",
            "\"samplesMs\"",
            "\"command\"", "\"runs\"", "\"conditions\"", "\"milestones\"", "\"swiftDefaultArgument\"",
            "\"kernel\"", "\"glibcVersion\"", "\"pinning\"", "\"binaryPath\"", "\"buildID\"", "\"date\"",
        ] {
            #expect(text.contains(key), "JSON lacks \(key)")
        }
    }
}
