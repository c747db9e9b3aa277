import Glibc
import PremainLaunch
import PremainModel
import PremainSystem
import PremainTestSupport
import Testing

/// Every trace test, one at a time: traces share two CPUs and would time each other otherwise.
@Suite(.serialized, .enabled(if: Tracer.isSupported, "trace is supported on x86-64 only"))
struct TraceTests {}

extension TraceTests {
    /// `premain trace` against the self-timed samples and the fault samples.
    @Suite
    struct TraceSampleTests {
        struct Traced {
            var measurement: TraceMeasurement
            var selfTimes: [String: [Double]]
        }

        func trace(
            _ sample: String, runs: Int = 5, until: TraceWindowEnd = .firstOutput,
            extraEnvironment: [String] = []
        ) throws -> Traced {
            let log = TraceSamples.built.path("\(sample.replacingSlashes).\(getpid()).log")
            unlink(log)
            let options = try TraceSamples.options(
                [TraceSamples.built.path(sample)],
                environment: ["PREMAIN_SAMPLE_LOG=\(log)"] + extraEnvironment,
                until: until, runs: runs)
            return Traced(measurement: try TraceSamples.measure(options), selfTimes: SelfTimingLog.durations(log))
        }

        /// The traced function whose symbol is `symbol`, in an object whose path ends with `object`.
        func function(_ m: TraceMeasurement, _ symbol: String, in object: String) throws -> TracedFunction {
            try #require(
                m.functions.first { $0.symbol == symbol && $0.object.hasSuffix("/" + object) },
                "\(symbol) in \(object) not traced; traced: \(m.functions.map(\.symbol))")
        }

        /// Every run of `f` timed: one figure per run.
        func expectTimedInEveryRun(
            _ f: TracedFunction, runs: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation
        ) {
            #expect(
                f.inclusive.samplesMs.count == runs,
                "\(f.symbol): \(f.inclusive.samplesMs)", sourceLocation: sourceLocation)
        }

        @Test func cxxStaticInitEveryInitializerNamedKindTimed() throws {
            let traced = try trace("cxx-static-init/cxx-static-init")
            let m = traced.measurement
            #expect(m.outcomes == Array(repeating: .milestoneReached("first-output"), count: 5))
            let registry = try function(m, "_GLOBAL__sub_I_registry.cpp", in: "libinit.so")
            let plugins = try function(m, "_GLOBAL__sub_I_plugins.cpp", in: "libinit.so")
            let ctorC = try function(m, "premain_lib_ctor_c", in: "libinit.so")
            let ctor101 = try function(m, "premain_exe_ctor_101", in: "cxx-static-init")
            let mainTU = try #require(
                m.functions.first {
                    $0.object.hasSuffix("/cxx-static-init") && $0.kind == .cxxTranslationUnitInitializer
                })
            #expect(registry.kind == .cxxTranslationUnitInitializer && plugins.kind == .cxxTranslationUnitInitializer)
            #expect(ctorC.kind == .constructorFunction && ctor101.kind == .constructorFunction)
            for f in [registry, plugins, ctorC, ctor101, mainTU] {
                #expect(f.calls == 1 && !f.callsCapped)
                expectTimedInEveryRun(f, runs: 5)
            }
            // Each initializer ran once in each traced run: its self-timing logged 5 lines.
            for id in ["lib:registry.cpp", "lib:plugins.cpp", "lib:ctor_c", "exe:ctor_101", "exe:main.cpp", "main"] {
                #expect(traced.selfTimes[id]?.count == 5, "\(id): \(traced.selfTimes[id] ?? [])")
            }
            #expect(registry.source?.file.hasSuffix("registry.cpp") == true)
            #expect(ctorC.source?.file.hasSuffix("ctor_c.c") == true)
            // The hot list is sorted by inclusive median.
            #expect(
                zip(m.functions, m.functions.dropFirst()).allSatisfy { $0.inclusive.medianMs >= $1.inclusive.medianMs })
            let main = try #require(m.milestones["main"]?.medianMs)
            let firstOutput = try #require(m.milestones["firstOutput"]?.medianMs)
            #expect(main <= firstOutput)
        }

        @Test(arguments: ["swift-startup/swift-startup", "swift-startup/swift-startup-O"])
        func swiftDefaultArgumentAndLazyGlobal(sample: String) throws {
            let object = String(sample.split(separator: "/").last ?? "")
            let traced = try trace(sample)
            let m = traced.measurement
            #expect(m.outcomes == Array(repeating: .milestoneReached("first-output"), count: 5))
            let defaultArgument = try function(
                m, "$s12SwiftStartup13HomeViewModelC14summaryServiceAcA07SummaryG0C_tcfcfA_", in: object)
            let lazyGlobal = try function(m, "$s12SwiftStartup11homeCatalog_WZ", in: object)
            expectTimedInEveryRun(defaultArgument, runs: 5)
            expectTimedInEveryRun(lazyGlobal, runs: 5)
            #expect(defaultArgument.kind == .swiftDefaultArgument)
            #expect(
                defaultArgument.demangled?.hasPrefix(
                    "default argument 0 of SwiftStartup.HomeViewModel.init(summaryService:") == true)
            #expect(lazyGlobal.kind == .swiftLazyGlobal)
            #expect(lazyGlobal.demangled == "one-time initialization function for SwiftStartup.homeCatalog")
            #expect(defaultArgument.source?.file.hasSuffix("main.swift") == true)
            // The lazy global is located at its declaration, not at line 0 (compiler-generated code).
            let lazySource = try #require(lazyGlobal.source)
            let lines = (LocalFiles.readText(lazySource.file) ?? "").split(
                separator: "\n", omittingEmptySubsequences: false)
            #expect(
                lazySource.line > 0 && lazySource.line <= lines.count
                    && lines[lazySource.line - 1].contains("homeCatalog"),
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
            let traced = try trace("faults/spawn-threads")
            let m = traced.measurement
            #expect(m.outcomes == Array(repeating: .milestoneReached("first-output"), count: 5))
            let ctor = try function(m, "premain_spawn_threads_ctor", in: "spawn-threads")
            #expect(ctor.calls == 1 && ctor.unfinishedCalls == 0)
            expectTimedInEveryRun(ctor, runs: 5)
            // The four threads ran in every traced run.
            #expect((0..<4).allSatisfy { traced.selfTimes["exe:thread\($0)"]?.count == 5 }, "\(traced.selfTimes)")
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

        /// A unit GCC names after `Fatal(const char*, ...)` and Clang after its file: both traced
        /// under the unit's source file, and its global timed apart at its definition line.
        @Test func cxxUnitIsNamedByItsFileAndItsGlobalTimedApart() throws {
            for sample in ["cxx-static-init/cxx-units", "cxx-static-init/cxx-units-clang"] {
                let m = try trace(sample, runs: 2, until: .exit).measurement
                let unit = try #require(
                    m.functions.first { $0.kind == .cxxTranslationUnitInitializer }, "\(sample): \(m.functions)")
                #expect(unit.symbol.hasPrefix("_GLOBAL__sub_I_"))
                #expect(unit.demangled?.hasSuffix("cxx-static-init/startup.cpp") == true, "\(sample)")
                #expect(unit.source?.shortText == "startup.cpp:38", "\(sample)")
                let global = try #require(m.functions.first { $0.kind == .cxxGlobal }, "\(sample): \(m.functions)")
                #expect(global.symbol == "startupAliases")
                #expect(global.demangled?.hasPrefix("startupAliases (") == true, "\(sample)")
                #expect(global.inlinedInto == unit.demangled)
                #expect(global.source?.shortText == "startup.cpp:38")
                expectTimedInEveryRun(global, runs: 2)
            }
        }

        @Test func untilMainStopsBeforeMain() throws {
            let traced = try trace("cxx-static-init/cxx-static-init", runs: 1, until: .main)
            #expect(traced.measurement.outcomes == [.milestoneReached("main")])
            #expect(traced.selfTimes["main"] == nil)  // killed at main's first instruction
            #expect(traced.measurement.functions.contains { $0.symbol == "premain_lib_ctor_c" })
        }

        @Test func maxCallsDisarmsAndReportsAtLeast() throws {
            var options = try TraceSamples.options([TraceSamples.built.path("calibrate"), "50"])
            options.functions = ["premain_calibration_empty"]
            options.maxCalls = 10
            let m = try TraceSamples.measure(options)
            let f = try #require(m.functions.first { $0.symbol == "premain_calibration_empty" })
            #expect(f.calls == 10 && f.callsCapped && f.callsText == "≥ 10" && f.kind == .named)
        }

        @Test func biasIsCalibrated() throws {
            let bias = try TraceSamples.bias.get()
            #expect(bias.source == .measured && bias.calibrationCalls > 0 && bias.costPerCallMs != nil, "\(bias)")
        }
    }

}

extension String {
    fileprivate var replacingSlashes: String { String(map { $0 == "/" ? "_" : $0 }) }
}
