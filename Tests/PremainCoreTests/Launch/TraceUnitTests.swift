import Foundation
import PremainAudit
import PremainModel
import Testing

@testable import PremainLaunch

#if canImport(Glibc)
    import Glibc
#endif

/// Pure parts of the tracer: no process involved.
@Suite
struct TraceUnitTests {
    #if arch(x86_64)
        @Test func entryInstructionsExecuteLikeTheCPU() throws {
            var regs = user_regs_struct()
            regs.rip = 0x1000
            regs.rsp = 0x7fff_0000
            regs.r12 = 0x1234
            regs.rbp = 0x99
            let pushR12 = try #require(EntryInstruction.execute([0x41, 0x54, 0x00, 0x00], registers: regs))
            #expect(pushR12.registers.rip == 0x1002 && pushR12.registers.rsp == 0x7ffe_fff8)
            #expect(pushR12.store?.address == 0x7ffe_fff8 && pushR12.store?.value == 0x1234)
            let pushRbp = try #require(EntryInstruction.execute([0x55, 0x48, 0x89, 0xe5], registers: regs))
            #expect(pushRbp.registers.rip == 0x1001 && pushRbp.store?.value == 0x99)
            let endbr = try #require(EntryInstruction.execute([0xf3, 0x0f, 0x1e, 0xfa], registers: regs))
            #expect(endbr.registers.rip == 0x1004 && endbr.store == nil && endbr.registers.rsp == regs.rsp)
            let movRbp = try #require(EntryInstruction.execute([0x48, 0x89, 0xe5, 0x00], registers: regs))
            #expect(movRbp.registers.rbp == 0x7fff_0000 && movRbp.registers.rip == 0x1003)
            // sub $0x18,%rsp changes flags: stepped, not executed here.
            #expect(EntryInstruction.execute([0x48, 0x83, 0xec, 0x18], registers: regs) == nil)
            #expect(EntryInstruction.execute([0x80, 0x3d, 0x91, 0x32], registers: regs) == nil)
        }
    #endif

    @Test func mapsGiveLoadBias() {
        let maps = ProcessMaps(
            text: """
                55d0a0000000-55d0a0001000 r--p 00000000 08:01 1234 /usr/bin/app
                55d0a0001000-55d0a0002000 r-xp 00001000 08:01 1234 /usr/bin/app
                7f0000000000-7f0000021000 rw-p 00000000 00:00 0
                7f1000000000-7f1000028000 r--p 00000000 08:01 99 /lib/x86_64-linux-gnu/libc.so.6
                7f1000028000-7f10001bd000 r-xp 00028000 08:01 99 /lib/x86_64-linux-gnu/libc.so.6
                7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
                7f2000000000-7f2000001000 r--p 00000000 08:01 7 /tmp/dir with space/lib.so
                """)
        #expect(maps.paths == ["/usr/bin/app", "/lib/x86_64-linux-gnu/libc.so.6", "/tmp/dir with space/lib.so"])
        #expect(maps.loadBias(of: "/usr/bin/app", segments: [(0, 0), (0x1000, 0x1000)]) == 0x55d0_a000_0000)
        #expect(maps.loadBias(of: "/lib/x86_64-linux-gnu/libc.so.6", segments: [(0, 0)]) == 0x7f10_0000_0000)
        #expect(maps.loadBias(of: "/absent.so", segments: [(0, 0)]) == nil)
    }

    @Test func waitStatusDecodesLikeTheMacros() {
        #expect(WaitStatus(0x0300) == .exited(3))
        #expect(WaitStatus(0x000b) == .signaled(11))
        #expect(WaitStatus(0x057f) == .stopped(signal: SIGTRAP, event: 0))
        #expect(WaitStatus(0x3_057f) == .stopped(signal: SIGTRAP, event: WaitStatus.eventClone))
        #expect(WaitStatus(0x137f) == .stopped(signal: SIGSTOP, event: 0))
    }

    @Test func correctionRemovesOneBiasPerStopAndMeasuredHandling() {
        let call = TracedCall(rawNs: 1_000_000, nestedStops: 2, nestedHandlingNs: 100_000, handlingNs: 50_000)
        #expect(call.correctedNs(biasNs: 10_000) == 1_000_000 - 30_000 - 100_000)
        #expect(TracedCall(rawNs: 5, nestedStops: 0, nestedHandlingNs: 0, handlingNs: 0).correctedNs(biasNs: 10) == 0)
    }

    @Test func functionQueriesMatchMangledAndDemangledNames() {
        let mangled = "$s12SwiftStartup15makeHomeCatalogSaySiGyF"
        let demangled = "SwiftStartup.makeHomeCatalog() -> [Swift.Int]"
        #expect(ProbePlanner.matches(mangled, mangled: mangled, demangled: demangled))
        #expect(ProbePlanner.matches(demangled, mangled: mangled, demangled: demangled))
        #expect(ProbePlanner.matches("SwiftStartup.makeHomeCatalog", mangled: mangled, demangled: demangled))
        #expect(!ProbePlanner.matches("makeHomeCatalog", mangled: mangled, demangled: demangled))
    }

    @Test func initializerKinds() {
        #expect(ProbePlanner.initializerKind("_GLOBAL__sub_I_registry.cpp") == .cxxTranslationUnitInitializer)
        #expect(ProbePlanner.initializerKind("premain_lib_ctor_c") == .constructorFunction)
        #expect(ProbePlanner.initializerKind("frame_dummy") == .staticInitializer)
        #expect(ProbePlanner.initializerKind(nil) == .staticInitializer)
    }

    /// The CLI calibrates on `premain.premainCalibrationEmpty` (a demangled name, as `--function`
    /// takes it); the probe carries the mangled symbol. Only that function's calls count, not
    /// those of another function traced by name.
    @Test func calibrationCountsTheCallsOfItsFunctionByEitherName() throws {
        let mangled = "$s7premain0A16CalibrationEmptyyyF"
        #expect(Demangler.demangle(mangled) == "premain.premainCalibrationEmpty() -> ()")
        func entry(_ symbol: String, _ kind: TracedFunctionKind, calls: Int)
            -> (TracedFunctionKey, (probe: TraceProbe, calls: [TracedCall], hits: Int, capped: Bool))
        {
            let probe = TraceProbe(
                object: "/usr/bin/premain", entry: 0x1000 + UInt64(calls), symbol: symbol,
                demangled: Demangler.demangle(symbol), kind: kind)
            let call = TracedCall(rawNs: 1000, nestedStops: 0, nestedHandlingNs: 0, handlingNs: 10)
            return (
                TracedFunctionKey(object: probe.object, symbol: symbol, entry: probe.entry),
                (probe, Array(repeating: call, count: calls), calls, false)
            )
        }
        let record = TraceRunRecord(
            functions: Dictionary(uniqueKeysWithValues: [
                entry(mangled, .named, calls: 300),
                entry("$s7premain4mainyyF", .named, calls: 7),
                entry("frame_dummy", .staticInitializer, calls: 1),
            ]),
            unfinished: [:], milestones: [:], outcome: .exited(code: 0), untimed: [], notes: [],
            tracerPriorityRaised: false)
        #expect(BiasCalibrator.calls(of: "premain.premainCalibrationEmpty", in: record).count == 300)
        #expect(BiasCalibrator.calls(of: "premain.premainCalibrationEmpty() -> ()", in: record).count == 300)
        #expect(BiasCalibrator.calls(of: mangled, in: record).count == 300)
        #expect(BiasCalibrator.calls(of: "premain_calibration_empty", in: record).count == 0)
    }

    /// Outcomes and the window end are typed in Swift and written as the text reports have
    /// always carried.
    @Test func outcomesAndWindowEndAreCodedAsText() throws {
        let outcomes: [TraceOutcome] = [
            .milestoneReached("first-output"), .milestoneReached("premain_lib_value"),
            .exited(code: 0), .exited(code: 7), .killedBySignal(11), .timedOut,
        ]
        let texts = [
            "reached first-output", "reached premain_lib_value", "exited with status 0",
            "exited with status 7", "killed by signal 11", "timed out",
        ]
        let encoded = try JSONEncoder().encode(outcomes)
        #expect(try JSONDecoder().decode([String].self, from: encoded) == texts)
        #expect(try JSONDecoder().decode([TraceOutcome].self, from: encoded) == outcomes)
        #expect(outcomes.map(\.succeeded) == [true, true, true, false, false, false])
        #expect(TraceOutcome(description: "exited with status x") == nil)
        let ends: [TraceWindowEnd] = [.main, .firstOutput, .exit, .symbol("premain_lib_value")]
        let endTexts = try JSONDecoder().decode([String].self, from: JSONEncoder().encode(ends))
        #expect(endTexts == ["main", "first-output", "exit", "premain_lib_value"])
        #expect(try JSONDecoder().decode([TraceWindowEnd].self, from: JSONEncoder().encode(ends)) == ends)
        let source = try JSONDecoder().decode(
            [String].self, from: JSONEncoder().encode([TraceBias.Source.measured, .given]))
        #expect(source == ["measured", "given"])
    }

    @Test func windowEndParses() {
        #expect(TraceWindowEnd(argument: "main") == .main)
        #expect(TraceWindowEnd(argument: "first-output") == .firstOutput)
        #expect(TraceWindowEnd(argument: "exit") == .exit)
        #expect(TraceWindowEnd(argument: "premain_lib_value") == .symbol("premain_lib_value"))
    }
}
