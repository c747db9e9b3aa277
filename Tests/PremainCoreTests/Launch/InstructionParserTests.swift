import Foundation
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// The callgrind reader, valgrind's syscall log and `InstructionCountBuilder` on files recorded
/// from Tests/Golden/callgrind/early-write/early-write.c (see its header for the recipe), on small
/// hand-written profiles, and on broken input.
struct InstructionParserTests {
    static let folder = Repository.root + "/Tests/Golden/callgrind/early-write"
    /// The dump files in the order made; the exit dump last.
    static let files = ["callgrind.out.1", "callgrind.out.2", "callgrind.out.3", "callgrind.out.4", "callgrind.out"]
    static let program = "/tmp/early-write"
    static let libc = "/usr/lib/x86_64-linux-gnu/libc.so.6"

    static func bytes(_ name: String) throws -> [UInt8] {
        try #require(LocalFiles.read(folder + "/" + name), "cannot read Golden/callgrind/early-write/\(name)")
    }

    static func parts() throws -> [CallgrindProfile] {
        try files.map { try CallgrindParser.parse(try bytes($0)) }
    }

    @Test func recordedPartsAddUpAndNameTheirTriggers() throws {
        let parts = try Self.parts()
        #expect(
            parts.map(\.trigger) == [
                "--dump-before=write", "--dump-before=write", "--dump-before=main",
                "--dump-before=write", "Program termination",
            ])
        #expect(parts.map(\.part) == [1, 2, 3, 4, 5])
        #expect(parts.allSatisfy { $0.pid == 11618 && $0.events == ["Ir"] })
        #expect(parts.map(\.cost) == [128_067, 14, 13_573, 4_495, 358])
        // Each dump's cost lines add up to its own summary: and totals: lines.
        #expect(parts.allSatisfy { $0.summary == $0.cost && $0.totals == $0.cost })
        #expect(parts[0].command == "/tmp/early-write")
    }

    @Test func countsOfTheRecordedRun() throws {
        let log = try Self.bytes("valgrind.log")
        let writes = ValgrindLog.writeDescriptors(in: log, pid: 11618)
        #expect(writes == [4, 2, 1])
        #expect(ValgrindLog.writeDescriptors(in: log, pid: 11619).isEmpty)

        let counts = InstructionCountBuilder.counts(parts: try Self.parts(), writeDescriptors: writes)
        #expect(counts.beforeMain == 128_067 + 14 + 13_573)
        // The first output is the stderr write, the second write: dumps 1 and 2.
        #expect(counts.toFirstOutput == 128_067 + 14)
        #expect(counts.total == 146_507)
        #expect(counts.notes.isEmpty)
        // The executable: fixture_ctor and the toolchain's unnamed frame_dummy; libc's two own.
        // The loader, valgrind's preload object and the `???` _init stubs are left out.
        #expect(
            counts.objects == [
                ObjectInstructions(object: Self.program, instructions: 20_157 + 12, calls: 2),
                ObjectInstructions(object: Self.libc, instructions: 75, calls: 2),
            ])
        let constructor = try #require(counts.functions.first)
        #expect(
            constructor
                == FunctionInstructions(
                    kind: .constructorFunction, object: Self.program, symbol: "fixture_ctor",
                    demangled: nil, instructions: 20_157, calls: 1))
        #expect(
            counts.functions.map(\.symbol) == [
                "fixture_ctor", "_init_first", "0x0000000000001160", "check_stdfiles_vtables",
            ])
        #expect(counts.functions[2].kind == .staticInitializer)
    }

    /// callgrind_annotate (valgrind's own reader, a Perl script) agrees on every dump's total
    /// and on the constructor's inclusive cost in each dump before main.
    @Test(
        .enabled(
            if: HostFacts.program("callgrind_annotate") != nil,
            "callgrind_annotate not installed (Debian package valgrind)"))
    func agreesWithCallgrindAnnotate() throws {
        let parts = try Self.parts()
        var constructor: UInt64 = 0
        for (index, file) in Self.files.enumerated() {
            let listing = try Shell.run([
                "callgrind_annotate", "--inclusive=yes", "--threshold=100", Self.folder + "/" + file,
            ]).stdout
            #expect(Self.annotated(listing, "PROGRAM TOTALS") == parts[index].cost, "\(file)")
            if index < 3 { constructor += Self.annotated(listing, ":fixture_ctor ") ?? 0 }
        }
        #expect(constructor == 20_157)
    }

    /// The number before the first line of `listing` holding `marker` ("13,573 (100.0%)  …").
    static func annotated(_ listing: String, _ marker: String) -> UInt64? {
        guard let line = listing.split(separator: "\n").first(where: { $0.contains(marker) }) else { return nil }
        return UInt64(line.split(separator: " ").first?.filter(\.isNumber) ?? "")
    }

    // MARK: the format on small profiles

    @Test func nameAndSubpositionCompression() throws {
        let profile = try CallgrindParser.parse(
            """
            # callgrind format
            version: 1
            positions: instr line
            events: Dr Ir
            summary: 9 1002

            ob=(1) /lib/a.so
            fl=(1) a.c
            fn=(1) caller
            0x10 3 1 100
            +4 * 2 200
            -2 +1 0 0x10
            cob=(2) /lib/b.so
            cfi=(2) b.c
            cfn=(2) callee name with spaces
            calls=2 0x20 7
            * * 5 600
            cfn=(1)
            calls=1 0x10
            +1 -1 0 50
            fn=(2)
            0x20 7 1 686
            totals: 9 1002
            """)
        #expect(profile.events == ["Dr", "Ir"])
        let caller = CallgrindProfile.Function(object: "/lib/a.so", name: "caller")
        let callee = CallgrindProfile.Function(object: "/lib/b.so", name: "callee name with spaces")
        // `fn=(2)` after `ob=(1)`: the function of id 2 in the object in force, /lib/a.so.
        let calleeInA = CallgrindProfile.Function(object: "/lib/a.so", name: "callee name with spaces")
        #expect(profile.selfCost == [caller: 100 + 200 + 16, calleeInA: 686])
        #expect(profile.cost == 1002)
        // cob= holds for one call only: the second call (to `caller` itself) stays in a.so.
        #expect(
            profile.calls == [
                CallgrindProfile.Call(caller: caller, callee: callee, count: 2, inclusive: 600),
                CallgrindProfile.Call(caller: caller, callee: caller, count: 1, inclusive: 50),
            ])
    }

    @Test func callsOfOnePairAddUp() throws {
        let profile = try CallgrindParser.parse(
            """
            events: Ir
            fn=a
            1 5
            cfn=b
            calls=1 3
            1 10
            cfn=b
            calls=0 3
            2 7
            fn=b
            3 17
            """)
        #expect(
            profile.calls == [
                CallgrindProfile.Call(
                    caller: .init(object: "", name: "a"), callee: .init(object: "", name: "b"),
                    count: 1, inclusive: 17)
            ])
        #expect(profile.cost == 22)
        #expect(profile.summary == nil && profile.totals == nil && profile.trigger == nil)
    }

    /// Every malformed line is an error naming its line, never a trap.
    @Test(
        arguments: [
            ("events: Ir\nfn=a\n1 x", 3, "bad cost 'x'"),
            ("events: Ir\n1 5", 2, "cost line before any fn= line"),
            ("fn=a\n1 5", 2, "cost line before the events: line"),
            ("events: Ir\nfn=a\ncalls=1 2\nfn=b", 3, "calls= line without a cfn= line before it"),
            ("events: Ir\nfn=a\ncfn=b\ncalls=1 2\nfn=b", 5, "calls= line not followed by a cost line"),
            ("events: Ir\nfn=a\ncfn=b\ncalls=1 2", 4, "calls= line at the end of the file"),
            ("events: Ir\nfn=a\ncfn=b\ncalls=x 2\n1 1", 4, "calls= needs a call count"),
            ("events: Ir\nfn=(7)", 2, "name id (7) used before it is defined"),
            ("events: Ir\nfn=(7 x", 2, "bad name id"),
            ("events: Ir\nfl=(3)", 2, "name id (3) used before it is defined"),
            ("events: Ir\nfn=a\n1 99999999999999999999", 3, "bad cost"),
            ("events: Ir\nfn=a\n1 18446744073709551615\n2 1", 4, "cost overflows 64 bits"),
            ("events: Ir\nfn=a\n1 1 2", 3, "2 costs for 1 event"),
            ("events: Ir\nfn=a\n+x 1", 3, "bad position '+x'"),
            ("events: Ir\nfn=a\n1 1\nevents: Ir", 4, "a second part in one file"),
            ("events: Dr", 1, "events: has no Ir event"),
            ("events: Ir\nxyz=3", 2, "unknown specification 'xyz'="),
            ("events: Ir\nhello world", 2, "unrecognized line 'hello world'"),
            ("positions: column\nevents: Ir", 1, "positions: must list instr, bb and/or line"),
            ("pid: -3\nevents: Ir", 1, "bad pid"),
        ] as [(String, Int, String)])
    func malformedLines(input: String, line: Int, message: String) {
        #expect(throws: CallgrindFormatError.self) { try CallgrindParser.parse(input) }
        do {
            _ = try CallgrindParser.parse(input)
        } catch {
            #expect(error.line == line, "\(input)")
            #expect(error.message.contains(message), "\(error.description)")
        }
    }

    @Test func wholeFileProblems() {
        for (input, message) in [
            ("", "no events: line"), ("# callgrind format\nversion: 1", "no events: line"),
            ("events: Ir\nfn=a\n1 5\ntotals: 6", "totals: 6, but the cost lines add up to 5"),
            ("events: Ir\nsummary: 4\nfn=a\n1 5", "summary: 4 is less than the cost lines' 5"),
            ("events: Ir\nsummary: 1 2\nfn=a", "summary: has 2 numbers for 1 events"),
        ] {
            do {
                _ = try CallgrindParser.parse(input)
                Issue.record("no error for \(input)")
            } catch {
                #expect(error.line == nil && error.message == message, "\(error.description)")
            }
        }
    }

    /// Cut or damaged copies of a recorded dump parse or fail with an error; none traps.
    @Test func damagedRecordedFilesNeverTrap() throws {
        let original = try Self.bytes("callgrind.out.3")
        var generator = SystemRandomNumberGenerator()
        var failures = 0
        for trial in 0..<300 {
            var damaged = original
            if trial % 2 == 0 {
                damaged = Array(damaged.prefix(Int.random(in: 0...damaged.count, using: &generator)))
            } else {
                for _ in 0..<4 {
                    damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
            }
            do {
                _ = try CallgrindParser.parse(damaged)
            } catch {
                failures += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(failures > 0)
    }

    // MARK: the builder's edge cases

    static func profile(
        _ trigger: String?, cost: UInt64, calls: [CallgrindProfile.Call] = [],
        loader: Bool = true
    ) -> CallgrindProfile {
        var selfCost = [CallgrindProfile.Function(object: "/bin/app", name: "f"): cost]
        if loader { selfCost[.init(object: "/lib/ld.so", name: "_dl_start")] = 0 }
        return CallgrindProfile(trigger: trigger, events: ["Ir"], selfCost: selfCost, calls: calls, cost: cost)
    }

    @Test func mainNeverReachedCountsEveryDumpsInitializers() {
        let call = CallgrindProfile.Call(
            caller: .init(object: "/lib/ld.so", name: "call_init"),
            callee: .init(object: "/lib/libx.so", name: "_GLOBAL__sub_I_x.cpp"), count: 1, inclusive: 40)
        let counts = InstructionCountBuilder.counts(
            parts: [
                Self.profile("--dump-before=write", cost: 10, calls: [call]),
                Self.profile("Program termination", cost: 5, calls: [call]),
            ],
            writeDescriptors: [2])
        #expect(counts.beforeMain == nil)
        #expect(counts.toFirstOutput == 10)
        #expect(counts.total == 15)
        #expect(counts.objects == [ObjectInstructions(object: "/lib/libx.so", instructions: 80, calls: 2)])
        #expect(counts.functions.map(\.kind) == [.cxxTranslationUnitInitializer])
        #expect(counts.notes.contains { $0.hasPrefix("main was not reached") })
    }

    @Test func firstOutputNeedsOneDumpPerWriteSystemCall() {
        let parts = [
            Self.profile("--dump-before=main", cost: 7), Self.profile("--dump-before=write", cost: 3),
            Self.profile("Program termination", cost: 1),
        ]
        // No write to fd 1 or 2: no first output, nothing to explain.
        let silent = InstructionCountBuilder.counts(parts: parts, writeDescriptors: [5])
        #expect(silent.toFirstOutput == nil && silent.notes.isEmpty && silent.beforeMain == 7)
        // Two write system calls but one dump (a raw syscall, say): the first output is not placed.
        let unplaced = InstructionCountBuilder.counts(parts: parts, writeDescriptors: [5, 1])
        #expect(unplaced.toFirstOutput == nil)
        #expect(
            unplaced.notes == ["first output not placed: callgrind saw 1 write calls, the kernel 2 write system calls"])
        #expect(InstructionCountBuilder.counts(parts: parts, writeDescriptors: [1]).toFirstOutput == 10)
    }

    @Test func swiftFunctionsAndStaticExecutables() {
        let once = CallgrindProfile.Call(
            caller: .init(object: "/lib/libswiftCore.so", name: "swift_once"),
            callee: .init(object: "/bin/app", name: "$s3App7catalog_WZ"), count: 1, inclusive: 900)
        let initializer = CallgrindProfile.Call(
            caller: .init(object: "/bin/app", name: "__libc_start_main"),
            callee: .init(object: "/bin/app", name: "frame_dummy"), count: 1, inclusive: 12)
        let counts = InstructionCountBuilder.counts(
            parts: [
                Self.profile("--dump-before=main", cost: 1000, calls: [once, initializer], loader: false),
                Self.profile("Program termination", cost: 1, loader: false),
            ],
            writeDescriptors: [])
        #expect(counts.objects.isEmpty)
        #expect(
            counts.functions == [
                FunctionInstructions(
                    kind: .swiftLazyGlobal, object: "/bin/app", symbol: "$s3App7catalog_WZ",
                    demangled: "one-time initialization function for App.catalog",
                    instructions: 900, calls: 1)
            ])
        #expect(counts.notes.contains { $0.hasPrefix("no glibc loader functions in the profile") })
    }

    // MARK: model and text

    @Test func handWrittenCountsDecodeWithDefaults() throws {
        let counts = try JSONDecoder().decode(
            InstructionCounts.self, from: Data(#"{"total": 5, "beforeMain": 3}"#.utf8))
        #expect(counts == InstructionCounts(beforeMain: 3, toFirstOutput: nil, total: 5, objects: [], functions: []))
        let again = try JSONDecoder().decode(InstructionCounts.self, from: JSONEncoder().encode(counts))
        #expect(again == counts)
    }

    @Test func textOfCounts() {
        let counts = InstructionCounts(
            beforeMain: 3_121_066, toFirstOutput: nil, total: 3_126_160,
            objects: [ObjectInstructions(object: "/opt/app/app", instructions: 3_000_014, calls: 2)],
            functions: [
                FunctionInstructions(
                    kind: .constructorFunction, object: "/opt/app/app", symbol: "_ZN4work4initEv",
                    demangled: "work::init()", instructions: 3_000_002, calls: 1)
            ],
            runs: 3, differingRuns: 0, notes: ["a note\u{1b}[31m"])
        #expect(
            InstructionsTextRenderer.render(counts) == """
                  instructions under callgrind (exact, repeatable; 3 runs, all equal; exit status 0)
                    before main     3,121,066
                    to first output         -
                    total           3,126,160

                  initializers of  instructions  calls
                  /opt/app/app        3,000,014      2

                  functions before main  object  instructions  calls
                  work::init()           app        3,000,002      1
                  note: a note\\x1b[31m

                """)
    }
}
