import PremainLaunch
import PremainModel
import PremainRender
import Testing

/// Per-object loading and relocation from glibc 2.36 `LD_DEBUG=files,reloc,statistics` lines
/// (real lines of `swift-demangle --help`, pid 15133), each given a known time.
struct LoaderBreakdownTests {
    static let lines = """
             15133:\t
             15133:\tfile=libswiftCore.so [0];  needed by /opt/swift/usr/bin/swift-demangle [0]
             15133:\tfile=libswiftCore.so [0];  generating link map
             15133:\t  dynamic: 0x00007fe2bfbe8b18  base: 0x00007fe2bf600000   size: 0x00000000007142a8
             15133:\t    entry: 0x00007fe2bf600000  phdr: 0x00007fe2bf600040  phnum:                  9
             15133:\tfile=libm.so.6 [0];  needed by /opt/swift/usr/bin/swift-demangle [0]
             15133:\tfile=libm.so.6 [0];  generating link map
             15133:\t  dynamic: 0x00007fe2bf5fed48  base: 0x00007fe2bf520000   size: 0x00000000000df110
             15133:\t    entry: 0x00007fe2bf520000  phdr: 0x00007fe2bf520040  phnum:                 11
             15133:\tfile=libc.so.6 [0];  needed by /opt/swift/usr/bin/swift-demangle [0]
             15133:\tfile=libc.so.6 [0];  generating link map
             15133:\t  dynamic: 0x00007fe2bf1f0b60  base: 0x00007fe2bf01e000   size: 0x00000000001e1f50
             15133:\trelocation processing: /lib/x86_64-linux-gnu/libc.so.6 (lazy)
             15133:\trelocation processing: /lib/x86_64-linux-gnu/libm.so.6 (lazy)
             15133:\trelocation processing: /opt/swift/usr/bin/../lib/swift/linux/libswiftCore.so (lazy)
             15133:\trelocation processing: /opt/swift/usr/bin/swift-demangle
             15133:\trelocation processing: /lib64/ld-linux-x86-64.so.2
             15133:\truntime linker statistics:
             15133:\t  total startup time in dynamic loader: 1657109 cycles
             15133:\t                 number of relocations: 1863
             15133:\tcalling init: /lib64/ld-linux-x86-64.so.2
             15133:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6
             15133:\tcalling init: /opt/swift/usr/bin/../lib/swift/linux/libswiftCore.so
             15133:\tinitialize program: /opt/swift/usr/bin/swift-demangle
             15133:\ttransferring control: /opt/swift/usr/bin/swift-demangle
             15133:\trelocation processing: /late/lib.so (lazy)
        """.split(separator: "\n").map(String.init)

    /// Line i arrives at `times[i]` (default: i ms).
    static func timeline(times: [Double]? = nil) -> LoaderTimeline? {
        var parser = LdDebugParser(pid: 15133)
        for (index, line) in lines.enumerated() { parser.consume(line: line, atMs: times?[index] ?? Double(index)) }
        return parser.result
    }

    @Test func relocationPassesAndLoadingSpans() throws {
        let timeline = try #require(Self.timeline())
        let passes = try #require(timeline.relocations)
        #expect(
            passes.map(\.path) == [
                "/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libm.so.6",
                "/opt/swift/usr/bin/../lib/swift/linux/libswiftCore.so",
                "/opt/swift/usr/bin/swift-demangle", "/lib64/ld-linux-x86-64.so.2",
            ])
        #expect(passes.map(\.lazy) == [true, true, true, false, false])
        #expect(passes.map(\.startMs) == [12, 13, 14, 15, 16])
        // Each pass ends at the next; the loader's own at the statistics block. After main, a
        // `relocation processing` line (a dlopen) is not a start-up pass.
        #expect(passes.map(\.durationMs) == [1, 1, 1, 1, 1])
        #expect(timeline.objects.map(\.startMs) == [1, 5, 9])
        #expect(timeline.objects.map(\.mappingMs) == [2, 2, 2])
        #expect(timeline.lines == Self.lines.count)
        #expect(timeline.sameStampLines == nil)
    }

    @Test func linesReadTogetherAreCounted() throws {
        var times = Self.lines.indices.map(Double.init)
        times[2] = 1
        times[3] = 1
        let timeline = try #require(Self.timeline(times: times))
        #expect(timeline.sameStampLines == 2)
        #expect(timeline.objects[0].mappingMs == 0)
    }

    static func sample(_ timeline: LoaderTimeline, firstOutput: Double) -> LaunchSample {
        LaunchSample(
            birthNs: 0, instrumented: true, loader: timeline, firstOutputMs: firstOutput,
            firstOutputStream: .stdout, exitMs: firstOutput + 1, outcome: ScriptedLauncher.success, stderrHead: "")
    }

    @Test func objectsGetTheirLoadingRelocationAndGroup() throws {
        let timeline = try #require(Self.timeline())
        let m = MeasurementBuilder().build(
            command: ["swift-demangle"], executablePath: "/opt/swift/usr/bin/swift-demangle", warmup: 0, cold: false,
            conditions: MeasureRendererTests.conditions, loaderPhasesMissing: nil,
            samples: [Self.sample(timeline, firstOutput: 30)], plain: [], residency: [[]])
        func object(_ suffix: String) throws -> ObjectMeasurement {
            try #require(m.objects.first { $0.path.hasSuffix(suffix) })
        }
        // libm has no initializer: its relocation line gives the path its `file=` line lacks.
        let libm = try object("/libm.so.6")
        #expect(libm.path == "/lib/x86_64-linux-gnu/libm.so.6")
        #expect(libm.mapping?.medianMs == 2)
        #expect(libm.relocation?.medianMs == 1)
        #expect(libm.lazyBinding == true)
        #expect(libm.group == .system)
        let core = try object("libswiftCore.so")
        #expect(core.group == .runtime)
        #expect(core.initializers?.medianMs == 1)
        let program = try object("swift-demangle")
        #expect(program.role == .executable)
        #expect(program.mapping == nil)
        #expect(program.relocation?.medianMs == 1)
        #expect(program.lazyBinding == false)
        #expect(program.group == .program)
        #expect(try object("ld-linux-x86-64.so.2").relocation?.medianMs == 1)

        let breakdown = try #require(m.breakdown)
        #expect(breakdown.end == .firstOutput)
        #expect(breakdown.launch.medianMs == 30)
        func row(_ phase: LaunchBreakdown.Phase, _ group: ObjectGroup? = nil) -> Double? {
            breakdown.rows.first { $0.phase == phase && $0.group == group }?.time.medianMs
        }
        #expect(row(.exec) == 0)
        #expect(row(.loading, .runtime) == 3)  // libswiftCore: mapping 2 + relocation 1
        #expect(row(.loading, .system) == 7)  // libm, libc: 2 + 1 each; the loader's own pass 1
        #expect(row(.loading, .program) == 1)
        // Loader phase 0 → 20 (first `calling init`); objects account for 2+2+2 mapping + 5 relocation.
        #expect(breakdown.loaderPhase?.medianMs == 20)
        #expect(row(.loaderOther) == 9)
        #expect(row(.program) == 6)  // main at 24, first output at 30
        #expect(breakdown.rows.allSatisfy { $0.share == $0.time.medianMs / 30 })
    }

    @Test func groupsByWhoseObject() {
        #expect(ObjectGroup.of(path: "/usr/lib/swift/linux/libFoundationEssentials.so", role: .library) == .runtime)
        #expect(ObjectGroup.of(path: "/lib/x86_64-linux-gnu/libstdc++.so.6", role: .library) == .runtime)
        #expect(ObjectGroup.of(path: "/usr/lib/x86_64-linux-gnu/libz.so.1", role: .library) == .system)
        #expect(ObjectGroup.of(path: "/usr/bin/../lib/libssl.so.3", role: .library) == .system)
        #expect(ObjectGroup.of(path: "/home/me/app/lib/libcore.so", role: .library) == .program)
        #expect(ObjectGroup.of(path: "/usr/bin/tool", role: .executable) == .program)
        #expect(ObjectGroup.of(path: "libswiftCore.so", role: .library) == .runtime)
        #expect(ObjectGroup.of(path: "libc++abi.so.1", role: .library) == .runtime)
        #expect(ObjectGroup.of(path: "libcrypt.so.1", role: .library) == .program)
    }

    @Test func factsAreSummedIntoTheLoadingRows() throws {
        let timeline = try #require(Self.timeline())
        var m = MeasurementBuilder().build(
            command: ["swift-demangle"], executablePath: "/opt/swift/usr/bin/swift-demangle", warmup: 0, cold: false,
            conditions: MeasureRendererTests.conditions, loaderPhasesMissing: nil,
            samples: [Self.sample(timeline, firstOutput: 30)], plain: [], residency: [[]])
        let facts = ObjectStaticFacts(
            relative: 10, symbolic: 5, plt: 2, other: 1, importedSymbols: 7, bindNow: false,
            fileSize: 100)
        m.attach(facts: ["/lib/x86_64-linux-gnu/libm.so.6": facts, "/lib/x86_64-linux-gnu/libc.so.6": facts])
        #expect(m.breakdown?.rows.first { $0.phase == .loading && $0.group == .system }?.relocations == 36)
        #expect(m.breakdown?.rows.first { $0.phase == .loading && $0.group == .runtime }?.relocations == nil)
        let text = MeasureTextRenderer.render(m, width: TextFit.unlimited)
        #expect(text.contains("loading + relocation: system libraries"))
        #expect(text.contains("/lib/x86_64-linux-gnu/libm.so.6"))
    }
}
