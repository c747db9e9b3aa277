import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PremainAudit
@testable import PremainJudge
@testable import PremainLaunch
@testable import PremainModel
@testable import PremainRender
@testable import PremainSystem

/// Every trace test, one at a time: traces share two CPUs and would time each other otherwise.
@Suite(.serialized)
struct TraceTests {}

extension TraceTests {
/// `premain trace` against the self-timed samples and the fault samples.
@Suite
struct TraceSampleTests {
    static let bias: Result<TraceBias, any Error> = Result { () throws -> TraceBias in
        try BiasCalibrator.measure(TraceSamples.calibration, cpu: nil, environment: TraceSamples.environment)
    }

    struct Traced {
        var measurement: TraceMeasurement
        var selfTimes: [String: [Double]]
    }

    func trace(_ sample: String, runs: Int = 5, until: TraceWindowEnd = .firstOutput,
               extraEnvironment: [String] = []) throws -> Traced {
        let built = TraceSamples.built
        try #require(built.failure == nil, "\(built.failure ?? "")")
        let bias = try Self.bias.get()
        let log = built.path("\(sample.replacingSlashes).\(getpid()).log")
        unlink(log)
        var options = TraceOptions(command: [built.path(sample)],
                                   environment: TraceSamples.environment + ["PREMAIN_SAMPLE_LOG=\(log)"] + extraEnvironment)
        options.biasMs = bias.pairMs
        options.runs = runs
        options.warmup = 0
        options.until = until
        options.timeoutSeconds = 20
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(devNull) }
        options.outputFD = devNull
        let report = try Tracer(options: options).run()
        let measurement = try #require(report.measurements.first)
        return Traced(measurement: measurement, selfTimes: TraceSamples.selfTimes(log))
    }

    /// The traced function whose symbol is `symbol`, in an object whose path ends with `object`.
    func function(_ m: TraceMeasurement, _ symbol: String, in object: String) throws -> TracedFunction {
        try #require(m.functions.first { $0.symbol == symbol && $0.object.hasSuffix("/" + object) },
                     "\(symbol) in \(object) not traced; traced: \(m.functions.map(\.symbol))")
    }

    /// `nil` when the median over runs of (traced − self-timed) is within `tolerance` ms, else
    /// what disagrees.
    func disagreement(_ f: TracedFunction, _ selfTimed: [Double]?, tolerance: Double) -> String? {
        guard let selfTimed, selfTimed.count == f.inclusive.samplesMs.count else {
            return "self-timing has \(selfTimed?.count ?? 0) lines, trace has \(f.inclusive.samplesMs.count) runs for \(f.symbol)"
        }
        let differences = zip(f.inclusive.samplesMs, selfTimed).map { $0 - $1 }
        let median = SampleStatistics.median(differences) ?? .infinity
        return abs(median) <= tolerance ? nil : "\(f.symbol): traced \(f.inclusive.samplesMs) vs self-timed \(selfTimed)"
    }

    /// Traces `sample` until every pair `timed` picks agrees with its self-timing. Up to three
    /// attempts: on a shared machine one series of launches is sometimes delayed by other work
    /// (a launch descheduled at a breakpoint). A systematic error fails all three.
    func traceAgreeing(_ sample: String, tolerance: Double = 0.5,
                       sourceLocation: Testing.SourceLocation = #_sourceLocation,
                       timed: (Traced) throws -> [(TracedFunction, [Double]?)]) throws -> Traced {
        var problems: [String] = []
        var last: Traced?
        for _ in 1...3 {
            let traced = try trace(sample)
            last = traced
            problems = try timed(traced).compactMap { disagreement($0.0, $0.1, tolerance: tolerance) }
            if problems.isEmpty { return traced }
        }
        Issue.record("timings disagree with self-timing in 3 attempts: \(problems.joined(separator: "; "))",
                     sourceLocation: sourceLocation)
        return try #require(last)
    }

    @Test func cxxStaticInitEveryInitializerNamedKindTimed() throws {
        let traced = try traceAgreeing("cxx-static-init/cxx-static-init") { traced in
            let m = traced.measurement
            let mainTU = try #require(m.functions.first {
                $0.object.hasSuffix("/cxx-static-init") && $0.kind == .cxxTranslationUnitInitializer
            })
            return [
                (try function(m, "_GLOBAL__sub_I_registry.cpp", in: "libinit.so"), traced.selfTimes["lib:registry.cpp"]),
                (try function(m, "_GLOBAL__sub_I_plugins.cpp", in: "libinit.so"), traced.selfTimes["lib:plugins.cpp"]),
                (try function(m, "premain_lib_ctor_c", in: "libinit.so"), traced.selfTimes["lib:ctor_c"]),
                (try function(m, "premain_exe_ctor_101", in: "cxx-static-init"), traced.selfTimes["exe:ctor_101"]),
                (mainTU, traced.selfTimes["exe:main.cpp"]),
            ]
        }
        let m = traced.measurement
        #expect(m.outcomes == Array(repeating: .milestoneReached("first-output"), count: 5))
        let registry = try function(m, "_GLOBAL__sub_I_registry.cpp", in: "libinit.so")
        let plugins = try function(m, "_GLOBAL__sub_I_plugins.cpp", in: "libinit.so")
        let ctorC = try function(m, "premain_lib_ctor_c", in: "libinit.so")
        let ctor101 = try function(m, "premain_exe_ctor_101", in: "cxx-static-init")
        let mainTU = try #require(m.functions.first {
            $0.object.hasSuffix("/cxx-static-init") && $0.kind == .cxxTranslationUnitInitializer
        })
        #expect(registry.kind == .cxxTranslationUnitInitializer && plugins.kind == .cxxTranslationUnitInitializer)
        #expect(ctorC.kind == .constructorFunction && ctor101.kind == .constructorFunction)
        for f in [registry, plugins, ctorC, ctor101, mainTU] { #expect(f.calls == 1 && !f.callsCapped) }
        #expect(registry.source?.file.hasSuffix("registry.cpp") == true)
        #expect(ctorC.source?.file.hasSuffix("ctor_c.c") == true)
        // The hot list is sorted by inclusive median.
        #expect(m.functions.first?.symbol == "_GLOBAL__sub_I_registry.cpp")
        #expect(m.milestones["main"] != nil && m.milestones["firstOutput"] != nil)
    }

    @Test(arguments: ["swift-startup/swift-startup", "swift-startup/swift-startup-O"])
    func swiftDefaultArgumentAndLazyGlobal(sample: String) throws {
        let object = String(sample.split(separator: "/").last ?? "")
        let traced = try traceAgreeing(sample) { traced in
            [(try function(traced.measurement, "$s12SwiftStartup13HomeViewModelC14summaryServiceAcA07SummaryG0C_tcfcfA_", in: object),
              traced.selfTimes["swift:defaultArgument"]),
             (try function(traced.measurement, "$s12SwiftStartup11homeCatalog_WZ", in: object), traced.selfTimes["swift:lazyGlobal"])]
        }
        let m = traced.measurement
        let defaultArgument = try function(m, "$s12SwiftStartup13HomeViewModelC14summaryServiceAcA07SummaryG0C_tcfcfA_", in: object)
        let lazyGlobal = try function(m, "$s12SwiftStartup11homeCatalog_WZ", in: object)
        #expect(defaultArgument.kind == .swiftDefaultArgument)
        #expect(defaultArgument.demangled?.hasPrefix("default argument 0 of SwiftStartup.HomeViewModel.init(summaryService:") == true)
        #expect(lazyGlobal.kind == .swiftLazyGlobal)
        #expect(lazyGlobal.demangled == "one-time initialization function for homeCatalog")
        #expect(defaultArgument.source?.file.hasSuffix("main.swift") == true)
        // The lazy global is located at its declaration, not at line 0 (compiler-generated code).
        let lazySource = try #require(lazyGlobal.source)
        let lines = (LocalFiles.readText(lazySource.file) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lazySource.line > 0 && lazySource.line <= lines.count && lines[lazySource.line - 1].contains("homeCatalog"),
                "\(lazySource)")
        if sample.hasSuffix("-O") {
            // Optimized: the generator is inlined into main; timed through DWARF inline ranges.
            #expect(defaultArgument.inlinedInto != nil)
        }
    }

    @Test func crashInsideAnInitializerLeavesNothingBehind() throws {
        let traced = try trace("faults/crash-in-init", runs: 2)
        let m = traced.measurement
        #expect(m.outcomes == [.killedBySignal(11), .killedBySignal(11)])
        let ctor = try function(m, "premain_crash_ctor", in: "crash-in-init")
        #expect(ctor.unfinishedCalls == 2 && ctor.inclusive.samplesMs.isEmpty)
        #expect(TraceSamples.leftovers().isEmpty)
    }

    @Test func threadsDuringStartUp() throws {
        let traced = try traceAgreeing("faults/spawn-threads", tolerance: 1.0) { traced in
            [(try function(traced.measurement, "premain_spawn_threads_ctor", in: "spawn-threads"),
              traced.selfTimes["exe:spawn_threads"])]
        }
        let m = traced.measurement
        #expect(m.outcomes == Array(repeating: .milestoneReached("first-output"), count: 5))
        #expect(TraceSamples.leftovers().isEmpty)
    }

    @Test(arguments: ["faults/forks-in-init", "faults/forks-child"])
    func forksTracedToExitWithNoProcessLeft(sample: String) throws {
        let traced = try trace(sample, runs: 1, until: .exit, extraEnvironment: ["PREMAIN_SAMPLE_CHILD_SLEEP_S=30"])
        let m = traced.measurement
        #expect(m.outcomes == [.exited(code: 0)])
        #expect(m.milestones["main"] != nil && m.milestones["exit"] != nil)
        if sample.hasSuffix("forks-in-init") {
            _ = try function(m, "premain_fork_ctor", in: "forks-in-init")
        }
        #expect(TraceSamples.leftovers().isEmpty)
    }

    @Test func untilMainStopsBeforeMain() throws {
        let traced = try trace("cxx-static-init/cxx-static-init", runs: 1, until: .main)
        #expect(traced.measurement.outcomes == [.milestoneReached("main")])
        #expect(traced.selfTimes["main"] == nil)  // killed at main's first instruction
        #expect(traced.measurement.functions.contains { $0.symbol == "premain_lib_ctor_c" })
    }

    @Test func maxCallsDisarmsAndReportsAtLeast() throws {
        let built = TraceSamples.built
        try #require(built.failure == nil)
        var options = TraceOptions(command: [built.path("calibrate"), "50"], environment: TraceSamples.environment)
        options.biasMs = try Self.bias.get().pairMs
        options.functions = ["premain_calibration_empty"]
        options.maxCalls = 10
        options.until = .exit
        options.runs = 1
        options.warmup = 0
        let m = try #require(try Tracer(options: options).run().measurements.first)
        let f = try #require(m.functions.first { $0.symbol == "premain_calibration_empty" })
        #expect(f.calls == 10 && f.callsCapped && f.callsText == "≥ 10" && f.kind == .named)
    }

    @Test func biasIsSmallAndPositive() throws {
        let bias = try Self.bias.get()
        #expect(bias.pairMs > 0 && bias.pairMs < 1)
        #expect((bias.costPerCallMs ?? 0) > bias.pairMs)
    }
}

}

extension String {
    fileprivate var replacingSlashes: String { String(map { $0 == "/" ? "_" : $0 }) }
}

