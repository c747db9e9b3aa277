import Foundation
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

/// `--export-trace`: the trace-event JSON of measure, compare and trace, checked against the
/// format's documented fields (`TraceEventValidation`) on reports built in code.
struct TraceEventRendererTests {
    static func slices(_ events: [[String: Any]]) -> [[String: Any]] { events.filter { $0["ph"] as? String == "X" } }

    @Test func measureHasOneTrackPerRunWithPhasesInitializersAndMilestones() throws {
        let report = try ReportFixtures.measure()
        let events = try TraceEventValidation.validate(try TraceEventRenderer.render(report))
        let runTracks = Set(Self.slices(events).map { $0["tid"] as? Int ?? -1 })
        #expect(runTracks == [1, 2, 3, 4, 5])
        let threadNames = events.filter { $0["name"] as? String == "thread_name" }
            .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(threadNames == ["run 1", "run 2", "run 3", "run 4", "run 5"])
        let first = Self.slices(events).filter { $0["tid"] as? Int == 1 }
        let names = first.compactMap { $0["name"] as? String }
        for phase in ["run 1", "exec and loader start", "map and relocate", "initializers", "main", "libc.so.6", "app"]
        {
            #expect(names.contains(phase), "no \(phase) slice")
        }
        // The hostile library's initializer: 3 ms from 1 ms after birth, in microseconds.
        let library = try #require(
            first.first { ($0["args"] as? [String: Any])?["object"] as? String == ReportFixtures.hostileObject })
        #expect(library["ts"] as? Double == 1000 && library["dur"] as? Double == 3000)
        #expect(library["cat"] as? String == "initializers")
        let instants = events.filter { $0["ph"] as? String == "i" && $0["tid"] as? Int == 1 }.compactMap {
            $0["name"] as? String
        }
        for milestone in ["loader start", "main", "first output", "exit"] { #expect(instants.contains(milestone)) }
        #expect(instants.contains { $0.hasPrefix("mapped ") })
    }

    @Test func measureWithoutKeptRunsDrawsTheMedianRun() throws {
        var report = try ReportFixtures.measure()
        report.measurements[0].rawSamples = nil
        let events = try TraceEventValidation.validate(try TraceEventRenderer.render(report))
        #expect(Set(Self.slices(events).map { $0["tid"] as? Int ?? -1 }).count == 1)
        #expect(Self.slices(events).contains { $0["name"] as? String == "initializers" })
    }

    @Test func compareHasBothSidesAsProcessesAndTheVerdict() throws {
        let report = try ReportFixtures.compare()
        let text = try TraceEventRenderer.render(report)
        let events = try TraceEventValidation.validate(text)
        let processes = events.filter { $0["name"] as? String == "process_name" }
            .compactMap { ($0["args"] as? [String: Any])?["name"] as? String }
        #expect(processes == ["base: /bin/base-app", "head: /bin/head-app"])
        let base = Self.slices(events).filter { $0["pid"] as? Int == 1 && $0["cat"] as? String == "launch" }
        let head = Self.slices(events).filter { $0["pid"] as? Int == 2 && $0["cat"] as? String == "launch" }
        #expect(base.count == report.runs.perSide && head.count == report.runs.perSide)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((document["otherData"] as? [String: String])?["verdict"] == report.verdict.title)
    }

    @Test func traceNestsCallsPerThreadWithObjectAddressAndSource() throws {
        let report = ReportFixtures.trace()
        let events = try TraceEventValidation.validate(try TraceEventRenderer.render(report))
        let calls = Self.slices(events)
        #expect(calls.count == 10)
        #expect(Set(calls.map { $0["pid"] as? Int ?? 0 }) == [1, 2])
        #expect(Set(calls.map { $0["tid"] as? Int ?? 0 }) == [100, 101])
        let lazy = try #require(
            calls.first { $0["name"] as? String == "one-time initialization function for main.catalog" })
        let args = try #require(lazy["args"] as? [String: Any])
        #expect(args["object"] as? String == "/app/main" && args["address"] as? String == "0x2390")
        #expect(args["source"] as? String == "/src/main.swift:79" && args["symbol"] as? String == "$s4main7catalog_WZ")
        #expect(lazy["ts"] as? Double == 1500 && lazy["dur"] as? Double == 3100)
        let milestones = events.filter { $0["cat"] as? String == "milestone" }
        #expect(milestones.count == 4 && milestones.allSatisfy { $0["s"] as? String == "p" })
    }

    @Test func traceWithoutTimelinesIsAnEmptyValidTrace() throws {
        var report = ReportFixtures.trace()
        report.measurements[0].timelines = nil
        let events = try TraceEventValidation.validate(try TraceEventRenderer.render(report))
        #expect(events.isEmpty)
    }

    @Test func validatorRejectsWhatViewersCannotRead() {
        let bad = [
            #"{"traceEvents":[{"name":"a","ph":"X","ts":1,"pid":1,"tid":1}]}"#,  // no dur, no names
            #"{"traceEvents":[{"name":"a","ph":"Q","ts":1,"pid":1,"tid":1}]}"#,
            #"{"traceEvents":[{"name":"a","ph":"i","ts":-1,"pid":1,"tid":1}]}"#,
            #"{"traceEvents":[{"name":"process_name","ph":"M","pid":1,"tid":0,"args":{"name":"p"}},{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"t"}},{"name":"a","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},{"name":"b","ph":"X","ts":5,"dur":10,"pid":1,"tid":1}]}"#,
            #"[1,2]"#,
        ]
        for text in bad {
            #expect(throws: TraceEventValidation.Problems.self) { _ = try TraceEventValidation.validate(text) }
        }
    }
}
