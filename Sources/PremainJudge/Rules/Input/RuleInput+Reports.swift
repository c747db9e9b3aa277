import FoundationEssentials
import PremainAudit
import PremainModel

extension RuleInput {
    /// The launches of a `premain measure` run held in memory, read exactly as its JSON report
    /// would be (one reader for both, so a rule sees the same facts either way). Returns an
    /// input without launches when the report has no measurement with milestones.
    public init(measure report: MeasureReport) {
        self = Self.reading(report)
    }

    /// The timed functions of a `premain trace` run held in memory, read exactly as its JSON
    /// report would be. Returns an empty input when no function was timed.
    public init(trace report: TraceReport) {
        self = Self.reading(report)
    }

    /// Encodes `report` as its JSON contract and reads that back; `RuleInput()` when it does
    /// not encode (it always does for the report types above).
    static func reading<Report: Encodable>(_ report: Report) -> RuleInput {
        guard let data = try? JSONEncoder().encode(report),
              let input = try? RuleInputLoader.report(String(decoding: data, as: UTF8.self)) else { return RuleInput() }
        return input
    }
}
