import Foundation
import PremainRender
import PremainTestSupport
import Testing

@testable import PremainHistory
@testable import PremainJudge
@testable import PremainModel

/// Issue 25: every report writes its `kind` beside `schemaVersion`, and one `ReportKind` reads
/// it (first) or guesses it from the keys of older reports, for `check`, `diff` and `history`
/// alike.
struct ReportKindTests {
    /// One report of each kind, as premain writes it.
    static func reports() throws -> [(ReportKind, String)] {
        let diff = PullRequestTests.staticDiff()
        let pr = PullRequestTests.report(.compared(PullRequestTests.noChange))
        return [
            (.audit, try JSONRenderer.render(AuditReport(binaries: [], errors: []))),
            (.measure, try JSONRenderer.render(try ReportFixtures.measure())),
            (.trace, try JSONRenderer.render(ReportFixtures.trace())),
            (.compare, try JSONRenderer.render(try ReportFixtures.compare())),
            (.diff, try JSONRenderer.render(diff)),
            (.pr, try JSONRenderer.render(pr)),
            (.check, try JSONRenderer.render(CheckReport(inputs: ["app"], findings: [], failOn: .error, errors: []))),
            (.history, try JSONRenderer.render(HistoryReport(database: "h.sqlite", reports: 0, series: []))),
        ]
    }

    static func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    static func header(_ object: [String: Any]) throws -> ReportHeader {
        try JSONDecoder().decode(ReportHeader.self, from: JSONSerialization.data(withJSONObject: object))
    }

    @Test func everyReportWritesItsKindAndIsReadByIt() throws {
        for (kind, json) in try Self.reports() {
            let object = try Self.object(json)
            #expect(object["kind"] as? String == kind.rawValue, "\(kind)")
            #expect(object["schemaVersion"] != nil, "\(kind)")
            #expect(try Self.header(object).kind == kind)
        }
        // A pr report's compare and diff are reports of their own.
        let pr = try Self.object(try #require(try Self.reports().first { $0.0 == .pr }?.1))
        #expect((pr["compare"] as? [String: Any])?["kind"] as? String == "compare")
        #expect((pr["diff"] as? [String: Any])?["kind"] as? String == "diff")
    }

    /// Reports written before `kind` are told by their keys, the same for every reader.
    @Test func olderReportsWithoutKindAreGuessedByOneRule() throws {
        for (kind, json) in try Self.reports() {
            var object = try Self.object(json)
            object["kind"] = nil
            #expect(try Self.header(object).kind == kind, "\(kind)")
            let older = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            if kind != .history {
                #expect(try ReportMetrics.read(older).kind == kind, "\(kind)")
            }
            if kind == .audit || kind == .measure || kind == .trace {
                #expect((try? RuleInputLoader.report(older)) != nil, "\(kind)")
            }
        }
        // A trace told by its functions alone (no bias), as check always told it, is a trace for history too.
        let trace = RecordedReports.trace(
            command: "/app",
            functions: [
                .init(object: "/app", symbol: "f", demangled: nil, kind: "constructor", samplesMs: [1, 1.1])
            ])
        var unbiased = try Self.object(trace)
        unbiased["bias"] = nil
        #expect(try Self.header(unbiased).kind == .trace)
        #expect(ReportKind.guess(keys: ["schemaVersion", "measurements"], tracedMeasurements: false) == .measure)
        #expect(ReportKind.guess(keys: ["schemaVersion", "other"], tracedMeasurements: false) == nil)
    }

    @Test func kindIsReadFirstAndAWrongKindIsRefused() throws {
        var measure = try Self.object(try JSONRenderer.render(try ReportFixtures.measure()))
        measure["kind"] = "trace"
        #expect(try Self.header(measure).kind == .trace)
        let data = try JSONSerialization.data(withJSONObject: measure)
        #expect(throws: DecodingError.self) { _ = try JSONDecoder().decode(MeasureReport.self, from: data) }
        measure["kind"] = "frobnicate"
        let unknown = try Self.header(measure)
        #expect(unknown.kind == nil && unknown.declaredKind == "frobnicate")
        do {
            _ = try ReportMetrics.read(
                String(decoding: try JSONSerialization.data(withJSONObject: measure), as: UTF8.self))
            Issue.record("a report of an unknown kind was read")
        } catch {
            #expect("\(error)".contains("'frobnicate'"))
        }
    }
}
