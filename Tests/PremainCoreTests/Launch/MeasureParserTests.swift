import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import Testing

/// `LdDebugParser` on glibc 2.36 `LD_DEBUG=files,statistics` lines (recorded without `reloc`), each given a known time.
struct MeasureParserTests {
    /// Real lines (pid 5525) from this machine; the time of line i is `i` ms.
    static let lines = """
              5525:\t
              5525:\tfile=libinit.so [0];  needed by cxx-static-init/cxx-static-init [0]
              5525:\tfile=libinit.so [0];  generating link map
              5525:\t  dynamic: 0x00007f0da0cf8de0  base: 0x00007f0da0cf5000   size: 0x0000000000004058
              5525:\t    entry: 0x00007f0da0cf5000  phdr: 0x00007f0da0cf5040  phnum:                  9
              5525:\tfile=libc.so.6 [0];  needed by cxx-static-init/cxx-static-init [0]
              5525:\tfile=libc.so.6 [0];  generating link map
              5525:\t  dynamic: 0x00007f0da0cdcb60  base: 0x00007f0da0b0a000   size: 0x00000000001e1f50
              5525:\truntime linker statistics:
              5525:\t  total startup time in dynamic loader: 252774 cycles
              5525:\t            time needed for relocation: 126243 cycles (49.9%)
              5525:\t                 number of relocations: 1770
              5525:\t      number of relocations from cache: 1608
              5525:\t        number of relative relocations: 905
              5525:\tcalling init: /lib64/ld-linux-x86-64.so.2
              5525:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6
              5525:\tcalling init: /tmp/s/cxx-static-init/libinit.so
              5525:\tinitialize program: cxx-static-init/cxx-static-init
              5525:\ttransferring control: cxx-static-init/cxx-static-init
              5525:\tcalling fini: /tmp/s/cxx-static-init/libinit.so [0]
              5525:\truntime linker statistics:
              5525:\t           final number of relocations: 1864
              5525:\tfinal number of relocations from cache: 1608
        """.split(separator: "\n").map(String.init)

    static func parse(_ lines: [String]) -> LoaderTimeline? {
        var parser = LdDebugParser()
        for (index, line) in lines.enumerated() { parser.consume(line: line, atMs: Double(index)) }
        return parser.result
    }

    @Test func timelineFromRealLines() throws {
        let timeline = try #require(Self.parse(Self.lines))
        #expect(timeline.loaderStartMs == 0)
        #expect(timeline.objects.map(\.name) == ["libinit.so", "libc.so.6"])
        #expect(timeline.objects.map(\.mappedMs) == [3, 7])
        #expect(timeline.objects[0].neededBy == "cxx-static-init/cxx-static-init")
        #expect(timeline.loaderDoneMs == 14)
        #expect(
            timeline.initializers.map(\.path) == [
                "/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6",
                "/tmp/s/cxx-static-init/libinit.so", "cxx-static-init/cxx-static-init",
            ])
        #expect(timeline.initializers.map(\.startMs) == [14, 15, 16, 17])
        #expect(timeline.initializers.map(\.durationMs) == [1, 1, 1, 1])
        #expect(timeline.initializers.map(\.isProgram) == [false, false, false, true])
        #expect(timeline.mainMs == 18)
        #expect(
            timeline.startupCounts
                == LoaderCounts(symbolLookups: 1770, relocationsFromCache: 1608, relativeRelocations: 905))
        #expect(timeline.finalCounts == LoaderCounts(symbolLookups: 1864, relocationsFromCache: 1608))
    }

    @Test func crashDuringAnInitializerLeavesItsDurationOpen() throws {
        let cut = Array(Self.lines.prefix(18))  // ends at "initialize program"
        let timeline = try #require(Self.parse(cut))
        #expect(timeline.initializers.last?.isProgram == true)
        #expect(timeline.initializers.last?.durationMs == nil)
        #expect(timeline.mainMs == nil)
    }

    @Test func noLinesNoTimeline() {
        #expect(LdDebugParser().result == nil)
    }

    @Test func lddStyleListsGivePaths() {
        let text = """
            \tlinux-vdso.so.1 (0x00007ffd5c3e5000)
            \tlibinit.so => /tmp/s/cxx-static-init/libinit.so (0x00007f1c)
            \tlibgone.so => not found
            \tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f1b)
            \t/lib64/ld-linux-x86-64.so.2 (0x00007f1d)
            """
        #expect(
            LoadedObjectDiscovery.parse(text) == [
                "/tmp/s/cxx-static-init/libinit.so", "/lib/x86_64-linux-gnu/libc.so.6",
                "/lib64/ld-linux-x86-64.so.2",
            ])
    }
}
