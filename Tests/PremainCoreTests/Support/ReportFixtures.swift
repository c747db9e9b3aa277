import Foundation
import PremainLaunch
import PremainModel

/// Reports built in code for the trace export and HTML renderers: scripted launches (no clock,
/// no process), a hostile object name in each, so renderers are tested without a compiler.
enum ReportFixtures {
    /// A name no renderer may pass through raw: markup, quotes, an ampersand, a control byte.
    static let hostileObject = "/opt/app/lib\"<script>alert(1)</script>&\u{1b}[31m.so"

    /// One scripted launch: the loader, three objects' initializers (one hostile), main,
    /// first output, exit. `libMs` is the hostile library's initializer time.
    static func launch(libMs: Double, jitter: Double = 0) -> LaunchSample {
        var sample = ScriptedLauncher.run(libMs: libMs, exeMs: 1 + jitter, shift: jitter)
        sample.loader?.initializers[1].path = hostileObject
        sample.loader?.objects[0].name = hostileObject
        return sample
    }

    /// `measure` of 5 runs with every run kept (as `--export-trace` keeps them).
    static func measure() throws -> MeasureReport {
        let script = (0..<5).map { launch(libMs: 3, jitter: Double($0) * 0.1) }
        var options = MeasureOptions(runs: 5, warmup: 0, observerSeries: false, pin: false, realtimeMeasurer: false)
        options.keepRawSamples = true
        options.holdIdleLatency = false
        let measurement = try MeasureSession(launcher: ScriptedLauncher(script)).measure(
            command: ["/bin/true", "--flag"], environment: [], options: options)
        return MeasureReport(measurements: [measurement])
    }

    /// `compare` of a base whose library initializer takes 2 ms against a head taking 3 ms,
    /// every launch kept.
    static func compare() throws -> CompareReport {
        let launcher = ScriptedLauncher { path, index in
            launch(libMs: path.hasSuffix("head-app") ? 3 : 2, jitter: Double(index % 3) * 0.02)
        }
        var options = CompareTests.options(minRuns: 8, maxRuns: 8)
        options.keepRawSamples = true
        return try CompareTests.session(launcher).compare(
            base: "/bin/base-app", head: "/bin/head-app", arguments: [], environment: [], options: options)
    }

    /// `trace` of 2 runs: on the main thread an initializer calling a lazy global calling a
    /// default argument, then on a second thread a hostile-named function; milestones.
    static func trace() -> TraceReport {
        func summary(_ ms: Double) -> TimeSummary { TimeSummary(samplesMs: [ms, ms]) ?? .zero }
        let functions = [
            TracedFunction(
                object: "/app/main", symbol: "_GLOBAL__sub_I_registry.cpp", demangled: nil,
                kind: .cxxTranslationUnitInitializer, calls: 1, callsCapped: false, inclusive: summary(4),
                source: SourceLocation(file: "/src/registry.cpp", line: 12), inlinedInto: nil, unfinishedCalls: 0),
            TracedFunction(
                object: "/app/main", symbol: "$s4main7catalog_WZ",
                demangled: "one-time initialization function for main.catalog",
                kind: .swiftLazyGlobal, calls: 1, callsCapped: false, inclusive: summary(3),
                source: SourceLocation(file: "/src/main.swift", line: 79), inlinedInto: nil, unfinishedCalls: 0),
            TracedFunction(
                object: "/app/main", symbol: "$s4main5parse4modeySS_tFfA_",
                demangled: "default argument 0 of main.parse(mode:)",
                kind: .swiftDefaultArgument, calls: 2, callsCapped: false, inclusive: summary(1),
                source: SourceLocation(file: "/src/main.swift", line: 92), inlinedInto: nil, unfinishedCalls: 0),
            TracedFunction(
                object: hostileObject, symbol: "ctor<&\"'>", demangled: nil, kind: .constructorFunction,
                calls: 1, callsCapped: false, inclusive: summary(2), source: nil, inlinedInto: nil, unfinishedCalls: 0),
        ]
        func timeline(_ run: Int) -> TraceRunTimeline {
            let shift = Double(run) * 0.25
            return TraceRunTimeline(
                run: run,
                calls: [
                    TraceCallSlice(
                        thread: 100, object: "/app/main", symbol: "_GLOBAL__sub_I_registry.cpp", address: 0x1130,
                        startMs: 1 + shift, durationMs: 4.2, inclusiveMs: 4, depth: 0),
                    TraceCallSlice(
                        thread: 100, object: "/app/main", symbol: "$s4main7catalog_WZ", address: 0x2390,
                        startMs: 1.5 + shift, durationMs: 3.1, inclusiveMs: 3, depth: 1),
                    TraceCallSlice(
                        thread: 100, object: "/app/main", symbol: "$s4main5parse4modeySS_tFfA_", address: 0x24b0,
                        startMs: 2 + shift, durationMs: 0.5, inclusiveMs: 0.45, depth: 2),
                    TraceCallSlice(
                        thread: 100, object: "/app/main", symbol: "$s4main5parse4modeySS_tFfA_", address: 0x24b0,
                        startMs: 3 + shift, durationMs: 0.6, inclusiveMs: 0.55, depth: 2),
                    TraceCallSlice(
                        thread: 101, object: hostileObject, symbol: "ctor<&\"'>", address: 0x4050,
                        startMs: 2.2 + shift, durationMs: 2, inclusiveMs: 2, depth: 0),
                ], milestones: ["main": 5.5 + shift, "firstOutput": 7 + shift])
        }
        let conditions = CompareTests.conditions
        let measurement = TraceMeasurement(
            command: ["/app/main", "--list"], runs: 2, warmup: 1, until: .firstOutput, maxCalls: 100,
            conditions: conditions,
            milestones: ["main": summary(5.5), "firstOutput": summary(7)],
            outcomes: [.milestoneReached("first-output"), .milestoneReached("first-output")],
            functions: functions, untimed: [], notes: [], timelines: [timeline(0), timeline(1)])
        return TraceReport(
            bias: TraceBias(pairMs: 0.008, costPerCallMs: 0.02, source: .measured, calibrationCalls: 900),
            measurements: [measurement])
    }
}
