import Glibc
import PremainModel
import Testing

@testable import PremainLaunch
@testable import PremainRender

/// Issue 12's defects of `measure` at the edges, on recorded glibc 2.36 `LD_DEBUG` lines (each
/// line's time is its index in ms) and scripted samples: no real launch, no clock.
struct MeasureEdgeCaseTests {
    static func parse(_ text: String) -> LdDebugParser {
        var parser = LdDebugParser()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            parser.consume(line: String(line), atMs: Double(index))
        }
        return parser
    }

    /// `late-load/app` (recorded): main dlopens libplugin.so, whose constructor runs 3 ms.
    static let lateLoad = """
              5807:\t
              5807:\tfile=libc.so.6 [0];  needed by ./app [0]
              5807:\tfile=libc.so.6 [0];  generating link map
              5807:\t  dynamic: 0x00007fbe708acb60  base: 0x00007fbe706da000   size: 0x00000000001e1f50
              5807:\truntime linker statistics:
              5807:\t                 number of relocations: 83
              5807:\tcalling init: /lib64/ld-linux-x86-64.so.2
              5807:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6
              5807:\tinitialize program: ./app
              5807:\ttransferring control: ./app
              5807:\tfile=/tmp/s/late-load/libplugin.so [0];  dynamically loaded by ./app [0]
              5807:\tfile=/tmp/s/late-load/libplugin.so [0];  generating link map
              5807:\t  dynamic: 0x00007fbe708c4e08  base: 0x00007fbe708c1000   size: 0x0000000000004018
              5807:\tcalling init: /tmp/s/late-load/libplugin.so
              5807:\t
              5807:\t
              5807:\topening file=/tmp/s/late-load/libplugin.so [0]; direct_opencount=1
              5807:\tcalling fini: /tmp/s/late-load/libplugin.so [0]
              5807:\truntime linker statistics:
              5807:\t           final number of relocations: 92
        """

    @Test func objectsLoadedAfterMainAreNotInitializersBeforeMain() throws {
        let timeline = try #require(Self.parse(Self.lateLoad).result)
        #expect(timeline.mainMs == 9)
        #expect(
            timeline.initializers.map(\.path) == [
                "/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6", "./app",
            ])
        #expect(timeline.initializers.allSatisfy { $0.durationMs != nil })
        let load = try #require(timeline.loadedAfterMain?.first)
        #expect(timeline.loadedAfterMain?.count == 1)
        #expect(load.name == "/tmp/s/late-load/libplugin.so")
        #expect(load.requester == "./app")
        #expect(load.startMs == 10)
        #expect(load.objects.map(\.mappedMs) == [12])
        // From its `calling init` (13) to `opening file=` (16), not to the next line after that.
        #expect(load.initializers.map(\.durationMs) == [3])
        #expect(load.endMs == 16)
        #expect(timeline.finalCounts?.symbolLookups == 92)

        let measurement = Self.build(
            ["./app"], "/tmp/s/late-load/app", samples: [Self.sample(timeline)], plain: [], residency: [])
        #expect(!measurement.objects.contains { $0.path.hasSuffix("libplugin.so") })
        let late = try #require(measurement.loadedAfterMain?.first)
        #expect(late.path == "/tmp/s/late-load/libplugin.so")
        #expect(late.requestedBy == "./app")
        #expect(late.loadStart.medianMs == 10)
        #expect(late.load?.medianMs == 3)
        #expect(late.initializers?.medianMs == 3)
        #expect(late.unfinished == 0)
        let text = MeasureTextRenderer.render(measurement)
        #expect(text.contains("loaded after main"))
    }

    @Test func lateInitializerIsUnfinishedOnlyWhenTheRunEndsInsideIt() throws {
        // The run was stopped (or crashed) inside the constructor: no `opening file=` line.
        let cut = Self.lateLoad.split(separator: "\n", omittingEmptySubsequences: false).prefix(14).joined(
            separator: "\n")
        let timeline = try #require(Self.parse(cut).result)
        let load = try #require(timeline.loadedAfterMain?.first)
        #expect(load.endMs == nil)
        #expect(load.initializers.first?.durationMs == nil)
        let measurement = Self.build(
            ["./app"], "/tmp/s/late-load/app",
            samples: [Self.sample(Self.parse(Self.lateLoad).result), Self.sample(timeline)], plain: [], residency: [])
        let late = try #require(measurement.loadedAfterMain?.first)
        #expect(late.runs == 2)
        #expect(late.unfinished == 1)
        #expect(late.initializers?.samplesMs == [3])
    }

    @Test func dlopenInAnInitializerBeforeMainStaysBeforeMain() throws {
        let lines = """
                  1:\tfile=libc.so.6 [0];  needed by ./app [0]
                  1:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6
                  1:\tfile=/p/libnested.so [0];  dynamically loaded by /lib/x.so [0]
                  1:\tcalling init: /p/libnested.so
                  1:\topening file=/p/libnested.so [0]; direct_opencount=1
                  1:\tinitialize program: ./app
                  1:\ttransferring control: ./app
            """
        let timeline = try #require(Self.parse(lines).result)
        #expect(timeline.loadedAfterMain == nil)
        #expect(timeline.initializers.map(\.path) == ["/lib/x86_64-linux-gnu/libc.so.6", "/p/libnested.so", "./app"])
    }

    /// `sh -c 'exec /bin/true'` (recorded): the same pid, two loaders, one output.
    static let execChain = """
              5810:\t
              5810:\tfile=libc.so.6 [0];  needed by sh [0]
              5810:\tfile=libc.so.6 [0];  generating link map
              5810:\t  dynamic: 0x00007f3276725b60  base: 0x00007f3276553000   size: 0x00000000001e1f50
              5810:\truntime linker statistics:
              5810:\t  total startup time in dynamic loader: 113782 cycles
              5810:\t                 number of relocations: 181
              5810:\t      number of relocations from cache: 7
              5810:\t        number of relative relocations: 281
              5810:\tcalling init: /lib64/ld-linux-x86-64.so.2
              5810:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6
              5810:\tinitialize program: sh
              5810:\ttransferring control: sh
              5810:\t
              5810:\tfile=libc.so.6 [0];  needed by /bin/true [0]
              5810:\tfile=libc.so.6 [0];  generating link map
              5810:\t  dynamic: 0x00007f660e532b60  base: 0x00007f660e360000   size: 0x00000000001e1f50
              5810:\truntime linker statistics:
              5810:\t  total startup time in dynamic loader: 69503 cycles
              5810:\t                 number of relocations: 87
              5810:\t      number of relocations from cache: 7
              5810:\t        number of relative relocations: 16
              5810:\tcalling init: /lib64/ld-linux-x86-64.so.2
              5810:\tcalling init: /lib/x86_64-linux-gnu/libc.so.6
              5810:\tinitialize program: /bin/true
              5810:\ttransferring control: /bin/true
              5810:\tcalling fini: /lib/x86_64-linux-gnu/libc.so.6 [0]
              5810:\truntime linker statistics:
              5810:\t           final number of relocations: 88
              5810:\tfinal number of relocations from cache: 7
        """

    @Test func execChainsAreSplitPerImage() throws {
        let parser = Self.parse(Self.execChain)
        let first = try #require(parser.result)
        let second = try #require(parser.laterImages?.first)
        #expect(parser.laterImages?.count == 1)
        #expect(first.program == "sh")
        #expect(first.mainMs == 12)
        #expect(first.initializers.count == 3)
        #expect(
            first.startupCounts == LoaderCounts(symbolLookups: 181, relocationsFromCache: 7, relativeRelocations: 281))
        #expect(first.finalCounts == nil)  // sh never exited: it became /bin/true
        #expect(second.program == "/bin/true")
        #expect(second.loaderStartMs == 14)
        #expect(second.loaderDoneMs == 22)
        #expect(second.mainMs == 25)
        #expect(second.initializers.map(\.path).last == "/bin/true")
        #expect(second.startupCounts?.symbolLookups == 87)
        #expect(second.finalCounts == LoaderCounts(symbolLookups: 88, relocationsFromCache: 7))

        var sample = Self.sample(first)
        sample.laterImages = parser.laterImages
        let measurement = Self.build(
            ["sh", "-c", "exec /bin/true"], "/usr/bin/sh", samples: [sample, sample], plain: [], residency: [])
        let image = try #require(measurement.execImages?.first)
        #expect(image.program == "/bin/true")
        #expect(image.position == 2)
        #expect(image.runs == 2)
        #expect(image.milestones[.main]?.medianMs == 25)
        #expect(image.objects.contains { $0.path == "/bin/true" && $0.role == .executable })
        // One executable row per image, each counted once per run.
        #expect(
            measurement.objects.filter { $0.role == .executable }.map { $0.initializersStart?.samplesMs.count } == [2])
        #expect(measurement.milestones[.main]?.medianMs == 12)
        #expect(measurement.loaderCounts?.final == nil)
        #expect(image.loaderCounts?.final?.symbolLookups == 88)
        #expect(measurement.warnings.contains { $0.kind == .execChain })
        let text = MeasureTextRenderer.render(measurement)
        #expect(text.contains("image 2, exec'd: /bin/true (reached in 2/2 runs)"))
    }

    @Test func aDlopenAfterMainIsNotTakenForANewImage() throws {
        // Its dependencies say "needed by", but inside the load they belong to it.
        let lines = """
                  1:\tfile=libc.so.6 [0];  needed by ./app [0]
                  1:\tcalling init: /lib64/ld-linux-x86-64.so.2
                  1:\tinitialize program: ./app
                  1:\ttransferring control: ./app
                  1:\tfile=libplug.so [0];  dynamically loaded by ./app [0]
                  1:\tfile=libplug.so [0];  generating link map
                  1:\t  dynamic: 0x1
                  1:\tfile=libdep.so [0];  needed by /p/libplug.so [0]
                  1:\tfile=libdep.so [0];  generating link map
                  1:\t  dynamic: 0x2
                  1:\tcalling init: /p/libdep.so
                  1:\tcalling init: /p/libplug.so
                  1:\topening file=libplug.so [0]; direct_opencount=1
            """
        let parser = Self.parse(lines)
        #expect(parser.laterImages == nil)
        let load = try #require(parser.result?.loadedAfterMain?.first)
        #expect(load.objects.map(\.name) == ["libplug.so", "libdep.so"])
        #expect(load.objects.map(\.mappedMs) == [6, 9])
        #expect(load.initializers.map(\.path) == ["/p/libdep.so", "/p/libplug.so"])
        #expect(load.initializers.map(\.durationMs) == [1, 1])
        let late = try #require(LateLoadAggregator.aggregate([parser.result?.loadedAfterMain]))
        #expect(late.map(\.path) == ["/p/libplug.so", "/p/libdep.so"])
        #expect(late.map(\.requestedBy) == ["./app", nil])
        #expect(late[0].load?.medianMs == 6)  // from its start (4) to the first initializer (10)
    }

    @Test func observerEffectAboveTheBudgetIsWarned() {
        func measurement(plainShift: Double) -> LaunchMeasurement {
            Self.build(
                ["/opt/app/app"], "/opt/app/app", samples: (0..<5).map { _ in ScriptedLauncher.run(libMs: 10) },
                plain: (0..<5).map { _ in ScriptedLauncher.run(libMs: 10 - plainShift, instrumented: false) },
                residency: [])
        }
        // Scripted exit 12 ms instrumented: ×1.09 against 11 ms, ×1.008 against 11.9 ms.
        #expect(measurement(plainShift: 1).warnings.contains { $0.kind == .observerEffect })
        #expect(!measurement(plainShift: 0.1).warnings.contains { $0.kind == .observerEffect })
    }

    @Test func childProcessesWithLoaderLinesAreNoted() {
        var sample = ScriptedLauncher.run(libMs: 1)
        sample.childProcessesWithLoaderOutput = 2
        let measurement = Self.build(
            ["/opt/app/app"], "/opt/app/app", samples: [sample, ScriptedLauncher.run(libMs: 1)], plain: [],
            residency: [])
        #expect(measurement.childProcessesWithLoaderOutput == 2)
        #expect(
            measurement.warnings.contains { $0.kind == .childProcesses && $0.message.contains("2 child processes") })
    }

    @Test func loaderCountsDoNotReadAsASubset() {
        let text = MeasureTextRenderer.describe(
            LoaderCounts(symbolLookups: 21347, relocationsFromCache: 44101, relativeRelocations: 5))
        #expect(
            text
                == "21347 symbol look-ups + 44101 more symbol relocations served by the one-entry look-up cache, 5 relative relocations"
        )
    }

    /// As a non-root user the reason read "No such process": errno was read after the series.
    @Test func idleLatencyRefusalNamesTheRealCause() {
        #expect(IdleLatencyGuard.notHeld(EACCES) == "not held (/dev/cpu_dma_latency needs root: Permission denied)")
        #expect(IdleLatencyGuard.notHeld(ENOENT) == "not held (this kernel has no /dev/cpu_dma_latency)")
    }

    static func build(
        _ command: [String], _ executable: String, samples: [LaunchSample], plain: [LaunchSample],
        residency: [[PageCacheEvictor.Residency]]
    ) -> LaunchMeasurement {
        MeasurementBuilder().build(
            command: command, executablePath: executable, warmup: 0, cold: false,
            conditions: MeasureRendererTests.conditions, loaderPhasesMissing: nil,
            samples: samples, plain: plain, residency: residency)
    }

    static func sample(_ timeline: LoaderTimeline?) -> LaunchSample {
        LaunchSample(
            birthNs: 0, instrumented: true, loader: timeline, firstOutputMs: 30, firstOutputStream: .stdout,
            exitMs: 31, outcome: ScriptedLauncher.success, stderrHead: "")
    }
}
