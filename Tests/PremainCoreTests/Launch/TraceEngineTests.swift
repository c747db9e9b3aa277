import ELFKit
import Glibc
import PremainLaunch
import PremainModel
import PremainTestSupport
import Testing

extension TraceTests {
    /// Engine corner cases: shared words, exec, signals, `--until SYMBOL`.
    @Suite
    struct TraceEngineCornerTests {
        func run(
            _ command: [String], functions: [String] = [], until: TraceWindowEnd = .exit,
            environment extra: [String] = []
        ) throws -> TraceMeasurement {
            var options = try TraceSamples.options(command, environment: extra, until: until)
            options.functions = functions
            return try TraceSamples.measure(options)
        }

        @Test func twoBreakpointsInOneWord() throws {
            let path = TraceSamples.built.path("adjacent")
            let m = try run([path], functions: ["premain_adjacent_a", "premain_adjacent_b"])
            let a = try #require(m.functions.first { $0.symbol == "premain_adjacent_a" })
            let b = try #require(m.functions.first { $0.symbol == "premain_adjacent_b" })
            // The two entries really share a word (else this test proves nothing).
            let file = try ELFFileForTests.symbols(path)
            let (ea, eb) = (try #require(file["premain_adjacent_a"]), try #require(file["premain_adjacent_b"]))
            #expect(ea & ~7 == eb & ~7, "entries 0x\(String(ea, radix: 16)) and 0x\(String(eb, radix: 16))")
            #expect(a.calls == 20 && b.calls == 20)
            #expect(m.outcomes == [.exited(code: 0)])
        }

        @Test func recursionCountsEveryCallAndTimesTheOutermost() throws {
            let m = try run([TraceSamples.built.path("recursive")], functions: ["premain_recurse"])
            #expect(m.outcomes == [.exited(code: 0)])
            let f = try #require(m.functions.first { $0.symbol == "premain_recurse" })
            // One figure for the run: the outermost call's, the five nested ones inside it.
            #expect(f.calls == 6 && f.unfinishedCalls == 0 && f.inclusive.samplesMs.count == 1)
        }

        @Test func exclusiveTimeLeavesOutTracedCallees() throws {
            // _GLOBAL__sub_I_registry.cpp constructs std::ios_base::Init; name it to trace it too.
            let m = try run(
                [TraceSamples.built.path("cxx-static-init/cxx-static-init")],
                functions: ["std::ios_base::Init::Init()"], until: .main)
            let registry = try #require(m.functions.first { $0.symbol == "_GLOBAL__sub_I_registry.cpp" })
            let initializer = try #require(m.functions.first { $0.demangled == "std::ios_base::Init::Init()" })
            #expect(initializer.kind == .named && initializer.calls >= 1)
            let exclusive = try #require(registry.exclusive)
            // One run, so medians are the run's figures: exclusive = inclusive − the traced callee,
            // by construction (up to rounding).
            #expect(
                abs(registry.inclusive.medianMs - initializer.inclusive.medianMs - exclusive.medianMs) < 0.01,
                "registry \(registry.inclusive.medianMs) - init \(initializer.inclusive.medianMs) vs self \(exclusive.medianMs)"
            )
            // A function that calls no traced function has exclusive == inclusive.
            let ctor = try #require(m.functions.first { $0.symbol == "premain_lib_ctor_c" })
            #expect(ctor.exclusive == ctor.inclusive)
        }

        @Test func vforkChildrenSharingMemory() throws {
            let m = try run([TraceSamples.built.path("spawner")], until: .firstOutput)
            #expect(m.outcomes == [.milestoneReached("first-output")])
            let ctor = try #require(m.functions.first { $0.symbol == "premain_spawn_ctor" })
            #expect(ctor.calls == 1 && ctor.unfinishedCalls == 0)
            #expect(TraceSamples.leftovers().isEmpty)
        }

        @Test func oneFunctionOnFourThreadsAtOnce() throws {
            let log = TraceSamples.built.path("worker.\(getpid()).log")
            unlink(log)
            let m = try run(
                [TraceSamples.built.path("faults/spawn-threads")], functions: ["worker"], until: .main,
                environment: ["PREMAIN_SAMPLE_LOG=\(log)"])
            let worker = try #require(m.functions.first { $0.symbol == "worker" })
            #expect(worker.calls == 4 && worker.unfinishedCalls == 0, "\(worker)")
            #expect(worker.inclusive.samplesMs.count == 1)
            // All four threads ran their bracket, and the constructor that joins them finished.
            let selfTimes = SelfTimingLog.durations(log)
            #expect((0..<4).allSatisfy { selfTimes["exe:thread\($0)"]?.count == 1 }, "\(selfTimes)")
            #expect(selfTimes["exe:spawn_threads"]?.count == 1)
            #expect(TraceSamples.leftovers().isEmpty)
        }

        @Test func followsExecByTheTarget() throws {
            let target = TraceSamples.built.path("cxx-static-init/cxx-static-init")
            let m = try run(["/bin/sh", "-c", "exec '\(target)'"], until: .firstOutput)
            #expect(m.outcomes == [.milestoneReached("first-output")])
            // The initializers of the exec'd program are found and timed.
            #expect(
                m.functions.contains {
                    $0.symbol == "_GLOBAL__sub_I_registry.cpp" && $0.inclusive.samplesMs.count == 1
                })
            #expect(TraceSamples.leftovers().isEmpty)
        }

        @Test func timeoutEndsAHangingTarget() throws {
            var options = try TraceSamples.options([TraceSamples.built.path("faults/hang")])
            options.timeoutSeconds = 1
            let m = try TraceSamples.measure(options)
            #expect(m.outcomes == [.timedOut])
            #expect(m.milestones["exit"] == nil && m.milestones["main"] != nil)
            #expect(TraceSamples.leftovers().isEmpty)
        }

        @Test func signalsReachTheTarget() throws {
            let m = try run(["/bin/sh", "-c", "trap 'exit 7' USR1; kill -USR1 $$; sleep 2; exit 0"])
            #expect(m.outcomes == [.exited(code: 7)])
        }

        @Test func untilSymbol() throws {
            let m = try run(
                [TraceSamples.built.path("cxx-static-init/cxx-static-init")], until: .symbol("premain_lib_value"))
            #expect(m.outcomes == [.milestoneReached("premain_lib_value")])
            #expect(m.milestones["premain_lib_value"] != nil && m.milestones["main"] != nil)
        }
    }
}

extension TraceTests {
    /// Stripped objects: names, Swift suspects and inline information come from a separate debug
    /// file found by build-id (with `--debug-dir`) or by `.gnu_debuglink`.
    @Suite
    struct TraceDebugFileTests {
        /// Copies swift-startup-O into a fresh folder, moves its symbols and DWARF to `.debug`
        /// and strips it; returns (folder, stripped binary, debug file, build-id).
        func strippedCopy(_ name: String) throws -> (String, String, String, String) {
            let built = TraceSamples.built
            try #require(built.failure == nil, "\(built.failure ?? "")")
            let folder = built.path(name)
            let binary = "\(folder)/app"
            let status = TraceSamples.shell(
                """
                rm -rf '\(folder)' && mkdir -p '\(folder)' && cp '\(built.path("swift-startup/swift-startup-O"))' '\(binary)' && \
                objcopy --only-keep-debug '\(binary)' '\(binary).debug' && strip --strip-all '\(binary)'
                """)
            try #require(status == 0)
            let id = try #require(try ELFKit.ELFFile(path: binary).buildID)
            #expect(try ELFKit.ELFFile(path: binary).staticSymbols == nil)
            return (folder, binary, "\(binary).debug", id)
        }

        func trace(_ binary: String, debugDirectories: [String]) throws -> TraceMeasurement {
            var options = try TraceSamples.options([binary], until: .firstOutput)
            options.debugDirectories = debugDirectories
            return try TraceSamples.measure(options)
        }

        func expectSwiftFunctionsFound(_ m: TraceMeasurement, sourceLocation: Testing.SourceLocation = #_sourceLocation)
        {
            let defaultArgument = m.functions.first { $0.symbol.hasSuffix("summaryServiceAcA07SummaryG0C_tcfcfA_") }
            let lazyGlobal = m.functions.first { $0.symbol == "$s12SwiftStartup11homeCatalog_WZ" }
            // Found through the debug file, and timed: the inlined default argument too.
            #expect(
                defaultArgument?.inlinedInto != nil && defaultArgument?.inclusive.samplesMs.isEmpty == false,
                sourceLocation: sourceLocation)
            #expect(defaultArgument?.source?.file.hasSuffix("main.swift") == true, sourceLocation: sourceLocation)
            #expect(lazyGlobal?.inclusive.samplesMs.isEmpty == false, sourceLocation: sourceLocation)
        }

        @Test func strippedWithoutDebugFileSaysWhatCannotBeTimed() throws {
            let (_, binary, debug, _) = try strippedCopy("stripped-none")
            unlink(debug)
            let m = try trace(binary, debugDirectories: [])
            #expect(!m.functions.contains { $0.symbol == "$s12SwiftStartup11homeCatalog_WZ" })
            #expect(!m.functions.contains { $0.kind == .swiftDefaultArgument && $0.object == binary })
            #expect(m.untimed.contains { $0.object == binary && $0.symbol == "*" && $0.reason.contains("--debug-dir") })
        }

        @Test func strippedWithDebugFileByBuildID() throws {
            let (folder, binary, debug, id) = try strippedCopy("stripped-build-id")
            let store = "\(folder)/debug/.build-id/\(id.prefix(2))"
            try #require(
                TraceSamples.shell("mkdir -p '\(store)' && mv '\(debug)' '\(store)/\(id.dropFirst(2)).debug'") == 0)
            expectSwiftFunctionsFound(try trace(binary, debugDirectories: ["\(folder)/debug"]))
        }

        @Test func strippedWithDebugLink() throws {
            let (_, binary, debug, _) = try strippedCopy("stripped-debuglink")
            try #require(TraceSamples.shell("objcopy --add-gnu-debuglink='\(debug)' '\(binary)'") == 0)
            expectSwiftFunctionsFound(try trace(binary, debugDirectories: []))
        }
    }
}
