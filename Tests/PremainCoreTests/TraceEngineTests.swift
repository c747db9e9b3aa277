import Testing
import ELFKit
#if canImport(Glibc)
import Glibc
#endif
@testable import PremainAudit
@testable import PremainJudge
@testable import PremainLaunch
@testable import PremainModel
@testable import PremainRender
@testable import PremainSystem

extension TraceTests {
/// Engine corner cases: shared words, exec, signals, `--until SYMBOL`.
@Suite
struct TraceEngineCornerTests {
    func run(_ command: [String], functions: [String] = [], until: TraceWindowEnd = .exit,
             environment extra: [String] = []) throws -> TraceMeasurement {
        let built = TraceSamples.built
        try #require(built.failure == nil, "\(built.failure ?? "")")
        var options = TraceOptions(command: command, environment: TraceSamples.environment + extra)
        options.biasMs = try TraceTests.TraceSampleTests.bias.get().pairMs
        options.functions = functions
        options.until = until
        options.runs = 1
        options.warmup = 0
        options.timeoutSeconds = 20
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(devNull) }
        options.outputFD = devNull
        return try #require(try Tracer(options: options).run().measurements.first)
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
        #expect(f.calls == 6 && f.unfinishedCalls == 0 && f.inclusive.samplesMs.count == 1)
        #expect(f.inclusive.medianMs < 1)
    }

    @Test func exclusiveTimeLeavesOutTracedCallees() throws {
        // _GLOBAL__sub_I_registry.cpp constructs std::ios_base::Init; name it to trace it too.
        let m = try run([TraceSamples.built.path("cxx-static-init/cxx-static-init")],
                        functions: ["std::ios_base::Init::Init()"], until: .main)
        let registry = try #require(m.functions.first { $0.symbol == "_GLOBAL__sub_I_registry.cpp" })
        let initializer = try #require(m.functions.first { $0.demangled == "std::ios_base::Init::Init()" })
        #expect(initializer.kind == .named && initializer.calls >= 1)
        let exclusive = try #require(registry.exclusive)
        #expect(abs(registry.inclusive.medianMs - initializer.inclusive.medianMs - exclusive.medianMs) < 0.01,
                "registry \(registry.inclusive.medianMs) - init \(initializer.inclusive.medianMs) vs self \(exclusive.medianMs)")
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
        let m = try run([TraceSamples.built.path("faults/spawn-threads")], functions: ["worker"], until: .main,
                        environment: ["PREMAIN_SAMPLE_LOG=\(log)"])
        let worker = try #require(m.functions.first { $0.symbol == "worker" })
        #expect(worker.calls == 4 && worker.unfinishedCalls == 0, "\(worker)")
        // Each call busy-waits 10 ms: with premain's stops of other threads removed, the four
        // calls add up to at least 39 ms, and at most four times the constructor that starts
        // and joins them (with 4 threads on 2 CPUs a thread also waits for a CPU inside `worker`,
        // outside its self-timed bracket, so the self-times are no exact reference here).
        let selfTimes = TraceSamples.selfTimes(log)
        let total = (0..<4).compactMap { selfTimes["exe:thread\($0)"]?.first }.reduce(0, +)
        let span = try #require(selfTimes["exe:spawn_threads"]?.first)
        #expect(total >= 40 && worker.inclusive.medianMs >= 39 && worker.inclusive.medianMs <= 4 * span + 0.5,
                "traced \(worker.inclusive.samplesMs), self \(selfTimes)")
        #expect(TraceSamples.leftovers().isEmpty)
    }

    @Test func followsExecByTheTarget() throws {
        let target = TraceSamples.built.path("cxx-static-init/cxx-static-init")
        let m = try run(["/bin/sh", "-c", "exec '\(target)'"], until: .firstOutput)
        #expect(m.outcomes == [.milestoneReached("first-output")])
        #expect(m.functions.contains { $0.symbol == "_GLOBAL__sub_I_registry.cpp" && $0.inclusive.medianMs > 15 })
        #expect(TraceSamples.leftovers().isEmpty)
    }

    @Test func timeoutEndsAHangingTarget() throws {
        let built = TraceSamples.built
        try #require(built.failure == nil)
        var options = TraceOptions(command: [built.path("faults/hang")], environment: TraceSamples.environment)
        options.biasMs = try TraceTests.TraceSampleTests.bias.get().pairMs
        options.until = .exit
        options.runs = 1
        options.warmup = 0
        options.timeoutSeconds = 1
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(devNull) }
        options.outputFD = devNull
        let m = try #require(try Tracer(options: options).run().measurements.first)
        #expect(m.outcomes == [.timedOut])
        #expect(m.milestones["exit"] == nil && m.milestones["main"] != nil)
        #expect(TraceSamples.leftovers().isEmpty)
    }

    @Test func signalsReachTheTarget() throws {
        let m = try run(["/bin/sh", "-c", "trap 'exit 7' USR1; kill -USR1 $$; sleep 2; exit 0"])
        #expect(m.outcomes == [.exited(code: 7)])
    }

    @Test func untilSymbol() throws {
        let m = try run([TraceSamples.built.path("cxx-static-init/cxx-static-init")], until: .symbol("premain_lib_value"))
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
        let status = TraceSamples.shell("""
            rm -rf '\(folder)' && mkdir -p '\(folder)' && cp '\(built.path("swift-startup/swift-startup-O"))' '\(binary)' && \
            objcopy --only-keep-debug '\(binary)' '\(binary).debug' && strip --strip-all '\(binary)'
            """)
        try #require(status == 0)
        let id = try #require(try ELFKit.ELFFile(path: binary).buildID)
        #expect(try ELFKit.ELFFile(path: binary).staticSymbols == nil)
        return (folder, binary, "\(binary).debug", id)
    }

    func trace(_ binary: String, debugDirectories: [String]) throws -> TraceMeasurement {
        var options = TraceOptions(command: [binary], environment: TraceSamples.environment)
        options.biasMs = try TraceTests.TraceSampleTests.bias.get().pairMs
        options.debugDirectories = debugDirectories
        options.runs = 1
        options.warmup = 0
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(devNull) }
        options.outputFD = devNull
        return try #require(try Tracer(options: options).run().measurements.first)
    }

    func expectSwiftFunctionsFound(_ m: TraceMeasurement, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let defaultArgument = m.functions.first { $0.symbol.hasSuffix("summaryServiceAcA07SummaryG0C_tcfcfA_") }
        let lazyGlobal = m.functions.first { $0.symbol == "$s12SwiftStartup11homeCatalog_WZ" }
        #expect(defaultArgument?.inlinedInto != nil && (defaultArgument?.inclusive.medianMs ?? 0) > 25,
                sourceLocation: sourceLocation)
        #expect(defaultArgument?.source?.file.hasSuffix("main.swift") == true, sourceLocation: sourceLocation)
        #expect((lazyGlobal?.inclusive.medianMs ?? 0) > 12, sourceLocation: sourceLocation)
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
        try #require(TraceSamples.shell("mkdir -p '\(store)' && mv '\(debug)' '\(store)/\(id.dropFirst(2)).debug'") == 0)
        expectSwiftFunctionsFound(try trace(binary, debugDirectories: ["\(folder)/debug"]))
    }

    @Test func strippedWithDebugLink() throws {
        let (_, binary, debug, _) = try strippedCopy("stripped-debuglink")
        try #require(TraceSamples.shell("objcopy --add-gnu-debuglink='\(debug)' '\(binary)'") == 0)
        expectSwiftFunctionsFound(try trace(binary, debugDirectories: []))
    }
}
}
