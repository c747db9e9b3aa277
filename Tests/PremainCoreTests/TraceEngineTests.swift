import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PremainCore

extension TraceTests {
/// Engine corner cases: shared words, exec, signals, `--until SYMBOL`.
@Suite
struct TraceEngineCornerTests {
    func run(_ command: [String], functions: [String] = [], until: TraceWindowEnd = .exit) throws -> TraceMeasurement {
        let built = TraceSamples.built
        try #require(built.failure == nil, "\(built.failure ?? "")")
        var options = TraceOptions(command: command, environment: TraceSamples.environment)
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
        #expect(m.outcomes == ["exited with status 0"])
    }

    @Test func followsExecByTheTarget() throws {
        let target = TraceSamples.built.path("cxx-static-init/cxx-static-init")
        let m = try run(["/bin/sh", "-c", "exec '\(target)'"], until: .firstOutput)
        #expect(m.outcomes == ["reached first-output"])
        #expect(m.functions.contains { $0.symbol == "_GLOBAL__sub_I_registry.cpp" && $0.inclusive.medianMs > 15 })
        #expect(TraceSamples.leftovers().isEmpty)
    }

    @Test func signalsReachTheTarget() throws {
        let m = try run(["/bin/sh", "-c", "trap 'exit 7' USR1; kill -USR1 $$; sleep 2; exit 0"])
        #expect(m.outcomes == ["exited with status 7"])
    }

    @Test func untilSymbol() throws {
        let m = try run([TraceSamples.built.path("cxx-static-init/cxx-static-init")], until: .symbol("premain_lib_value"))
        #expect(m.outcomes == ["reached premain_lib_value"])
        #expect(m.milestones["premain_lib_value"] != nil && m.milestones["main"] != nil)
    }
}
}
