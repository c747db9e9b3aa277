import ELFKit
import Foundation
import PremainAudit
import PremainModel
import PremainRender
import PremainTestSupport
import Synchronization
import Testing

@testable import PremainLaunch

/// Issue 12's trace defects on recorded runs and real system files: functions that share a
/// name, IFUNC resolvers, --function found in a library, failures and --until explained.
struct TraceEdgeCaseTests {
    static func record(
        _ probes: [TraceProbe], outcome: TraceOutcome = .exited(code: 0), stderr: String = "",
        untimed: [UntimedFunction] = [], untilFound: Bool = true
    ) -> TraceRunRecord {
        let call = TracedCall(rawNs: 2_000_000, nestedStops: 0, nestedHandlingNs: 0, handlingNs: 10)
        var functions: [TracedFunctionKey: (probe: TraceProbe, calls: [TracedCall], hits: Int, capped: Bool)] = [:]
        for probe in probes {
            functions[TracedFunctionKey(object: probe.object, symbol: probe.symbol, entry: probe.entry)] = (
                probe, [call], 1, false
            )
        }
        var record = TraceRunRecord(
            functions: functions, unfinished: [:], milestones: [:], outcome: outcome,
            untimed: untimed, notes: [], tracerPriorityRaised: false)
        record.stderrHead = stderr
        record.untilFound = untilFound
        return record
    }

    static func aggregate(
        _ records: [TraceRunRecord], options: TraceOptions = TraceOptions(command: ["/app"], environment: [])
    )
        -> TraceMeasurement
    {
        TraceAggregator(
            biasMs: 0,
            planner: ProbePlanner(
                functionQueries: options.functions, untilSymbol: nil,
                debugLocator: DebugFileLocator(extraDirectories: []))
        )
        .measurement(of: records, options: options, conditions: MeasureRendererTests.conditions)
    }

    /// swift-frontend has two `_GLOBAL__sub_I_SimplifyCFG.cpp` (0x671260 and 0x6a9aa0).
    @Test func functionsThatShareANameAreTwoRowsWithTheirAddress() throws {
        let object = "/opt/swift/usr/bin/swift-frontend"
        let probes = [0x671260, 0x6a9aa0].map {
            TraceProbe(
                object: object, entry: UInt64($0), symbol: "_GLOBAL__sub_I_SimplifyCFG.cpp", demangled: nil,
                kind: .cxxTranslationUnitInitializer)
        }
        let measurement = Self.aggregate([Self.record(probes), Self.record(probes)])
        #expect(measurement.functions.count == 2)
        #expect(Set(measurement.functions.compactMap(\.address)) == ["0x671260", "0x6a9aa0"])
        #expect(measurement.functions.allSatisfy { $0.calls == 1 })
        let text = TraceTextRenderer.render(
            TraceReport(
                bias: TraceBias(pairMs: 0, costPerCallMs: nil, source: .given, calibrationCalls: 0),
                measurements: [measurement]), width: TextFit.unlimited)
        #expect(text.contains("_GLOBAL__sub_I_SimplifyCFG.cpp @0x671260"))
        #expect(text.contains("_GLOBAL__sub_I_SimplifyCFG.cpp @0x6a9aa0"))
        let json = try JSONRenderer.render(measurement)
        #expect(json.contains("\"address\" : \"0x671260\""))
    }

    @Test func ifuncResolversAreNamedAsSuch() throws {
        let libc = "/lib/x86_64-linux-gnu/libc.so.6"
        try #require(FileManager.default.fileExists(atPath: libc))
        let planner = ProbePlanner(
            functionQueries: ["strlen"], untilSymbol: nil, debugLocator: DebugFileLocator(extraDirectories: []))
        let plan = try #require(planner.plan(for: libc, isMainExecutable: false))
        let strlen = try #require(plan.probes.first { $0.symbol == "strlen" })
        #expect(strlen.isIFuncResolver)
        let measurement = Self.aggregate(
            [Self.record([strlen])],
            options: {
                var o = TraceOptions(command: ["/app"], environment: [])
                o.functions = ["strlen"]
                return o
            }())
        #expect(measurement.functions.first?.ifuncResolver == true)
        #expect(measurement.notes.contains { $0.contains("GNU IFUNC") })
        let text = TraceTextRenderer.render(
            TraceReport(
                bias: TraceBias(pairMs: 0, costPerCallMs: nil, source: .given, calibrationCalls: 0),
                measurements: [measurement]), width: TextFit.unlimited)
        #expect(text.contains("strlen (IFUNC resolver)"))
    }

    @Test func aFunctionFoundInALibraryIsNotAlsoListedUntimed() {
        var options = TraceOptions(command: ["/app"], environment: [])
        options.functions = ["premain_lib_value", "premain_nowhere"]
        let found = TraceProbe(
            object: "/app/libx.so", entry: 0x1100, symbol: "premain_lib_value", demangled: nil, kind: .named)
        let untimed = options.functions.map {
            UntimedFunction(
                object: "/app/app", symbol: $0, demangled: nil, kind: .named,
                reason: "no function with this name in the executable")
        }
        let measurement = Self.aggregate([Self.record([found], untimed: untimed)], options: options)
        #expect(measurement.untimed.map(\.symbol) == ["premain_nowhere"])
    }

    @Test func failedRunsAreExplainedWithTheLoadersError() {
        let stderr =
            "/opt/swift/usr/bin/lldb: error while loading shared libraries: libpython3.10.so.1.0: cannot open shared object file\n"
        let measurement = Self.aggregate([
            Self.record([], outcome: .exited(code: 127), stderr: stderr),
            Self.record([], outcome: .exited(code: 127), stderr: stderr),
            Self.record([], outcome: .exited(code: 0)),
        ])
        #expect(
            measurement.failures == ["2 of 3 runs: exited with status 127: the loader failed: \(stderr.dropLast())"])
        #expect(
            Self.aggregate([Self.record([], outcome: .exited(code: 3))]).failures == [
                "1 of 1 runs: exited with status 3"
            ])
        #expect(Self.aggregate([Self.record([])]).failures == nil)
    }

    @Test func setuidProgramsTracedUnprivilegedAreNoted() throws {
        let folder = TemporaryFolders.root + "/premain-setuid-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let program = folder + "/program"
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: program)
        #expect(Tracer.setuidNote(program, effectiveUser: 1000) == nil)
        chmod(program, 0o4755)
        #expect(Tracer.setuidNote(program, effectiveUser: 1000)?.contains("is setuid: under ptrace") == true)
        #expect(Tracer.setuidNote(program, effectiveUser: 0) == nil)
    }

    /// A static executable's C runtime calls `_init`: it is listed and planned like DT_INIT.
    @Test func staticExecutablesInitIsAnInitializer() throws {
        let file = try ELFFile(path: try Samples.path("c-hello/c-hello-static"))
        let entries = file.initializerEntries
        #expect(entries.first?.source == .dtInit)
        #expect(entries.first?.target == file.section(named: ".init")?.address)
        let plan = try #require(
            ProbePlanner(functionQueries: [], untilSymbol: nil, debugLocator: DebugFileLocator(extraDirectories: []))
                .plan(for: try Samples.path("c-hello/c-hello-static"), isMainExecutable: true))
        #expect(plan.probes.contains { $0.symbol == "_init" })
        let audit = BatchAudit(closure: ClosureOptions()).run([try Samples.path("c-hello/c-hello-static")])
        let binary = try #require(audit.binaries.first)
        #expect(binary.closure == nil)
        #expect(binary.closureSkipped?.hasPrefix("statically linked") == true)
        #expect(AuditTextRenderer.render(binary).contains("binding     none (statically linked"))
    }

    /// Objects are named by the path the loader opened (as measure and audit name them), not by
    /// the real path /proc/PID/maps shows (libstdc++.so.6.0.30).
    @Test func objectsAreNamedAsTheLoaderNamesThem() throws {
        let program = try Samples.path("cxx-static-init/cxx-static-init")
        var options = try TraceSamples.options([program])
        options.biasMs = 0
        let measurement = try TraceSamples.measure(options)
        let closure = try ClosureResolver().resolve(path: program)
        let loaderPaths = Set(closure.objects.map(\.path) + [program])
        let objects = Set(measurement.functions.map(\.object))
        #expect(objects.contains { $0.hasSuffix("/libstdc++.so.6") }, "\(objects)")
        #expect(objects.isSubset(of: loaderPaths), "\(objects.subtracting(loaderPaths))")
    }

    /// An exec chain is two images: libc's initializers ran once in each, two rows of one
    /// call each (they were one row with "calls 2").
    @Test func execChainsKeepEachImagesCallsApart() throws {
        let hello = try Samples.path("c-hello/c-hello")
        let measurement = try TraceSamples.measure(try TraceSamples.options(["/bin/sh", "-c", "exec \(hello)"]))
        let firsts = measurement.functions.filter { $0.symbol == "_init_first" }
        #expect(
            firsts.map(\.image).sorted { ($0 ?? 1) < ($1 ?? 1) } == [nil, 2], "\(measurement.functions.map(\.symbol))")
        #expect(firsts.allSatisfy { $0.calls == 1 })
        #expect(measurement.functions.contains { $0.object == hello && $0.image == 2 })
    }

    /// Calibration takes seconds: the progress callback hears of it before the first run.
    @Test func calibrationIsReportedAsAPhase() throws {
        var options = try TraceSamples.options(["/bin/true"])
        options.biasMs = nil
        options.calibration = TraceSamples.calibration
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { close(devNull) }
        options.outputFD = devNull
        let seen = Mutex<[LaunchProgress]>([])
        _ = try Tracer(options: options).run { step in seen.withLock { $0.append(step) } }
        let steps = seen.withLock { $0 }
        #expect(steps.first?.phase == "measuring the tracer's bias")
        #expect(steps.dropFirst().allSatisfy { $0.phase == nil })
        #expect(steps.last?.completed == 1)
    }

    /// /proc/PID/maps writes a newline in a path as "\012": the object is still found (it was
    /// silently skipped).
    @Test func mapsPathsWithANewlineAreUnescaped() {
        let maps = ProcessMaps(
            text: "7f0000000000-7f0000001000 r-xp 00000000 08:01 42   /tmp/odd\\012calling init: /fake/lib.so\n")
        #expect(maps.paths == ["/tmp/odd\ncalling init: /fake/lib.so"])
    }

    @Test func untilAnUnknownFunctionIsNoted() {
        var options = TraceOptions(command: ["/app"], environment: [])
        options.until = .symbol("no_such_fn")
        let measurement = Self.aggregate([Self.record([], untilFound: false)], options: options)
        #expect(measurement.notes.contains { $0.hasPrefix("--until no_such_fn: no function with this name was found") })
        #expect(
            !Self.aggregate([Self.record([], untilFound: true)], options: options).notes.contains {
                $0.hasPrefix("--until")
            })
    }
}
