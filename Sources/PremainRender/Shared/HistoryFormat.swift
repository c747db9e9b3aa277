import PremainModel

/// Shared pieces of the history renderers: sparklines, values with their unit, commit names.
public enum HistoryFormat {
    static let bars = Array("▁▂▃▄▅▆▇█")

    /// One block character per value, scaled from the series' minimum to its maximum; all
    /// lowest when the values are equal; "" for no values.
    public static func sparkline(_ values: [Double]) -> String {
        guard let low = values.min(), let high = values.max() else { return "" }
        let span = high - low
        return String(
            values.map { value in
                guard span > 0, value.isFinite else { return bars[0] }
                let level = Int(((value - low) / span * Double(bars.count - 1)).rounded())
                return bars[min(bars.count - 1, max(0, level))]
            })
    }

    /// "41.203 ms" or "1,204" (a count).
    public static func value(_ value: Double, unit: String) -> String {
        unit == "ms" ? Milliseconds.text(value) : count(value)
    }

    /// "+2.004 ms" or "+12" (a count).
    public static func shift(_ value: Double, unit: String) -> String {
        unit == "ms" ? Milliseconds.signed(value) : CountText.signed(value)
    }

    static func count(_ value: Double) -> String {
        value == value.rounded() && value >= 0 && value < 1e15
            ? CountText.grouped(UInt64(value))
            : Milliseconds.number(value, decimals: 1)
    }

    /// A commit's name: 40-hex SHAs cut to 12 characters; "report N" when there is no commit.
    /// Control characters escaped (the name comes from the command line or a CI variable).
    public static func commit(_ commit: String?, report: Int) -> String {
        guard let commit else { return "report \(report)" }
        let isSHA = commit.count == 40 && commit.allSatisfy(\.isHexDigit)
        return TextSafety.display(isSHA ? String(commit.prefix(12)) : commit)
    }

    /// "step +2.004 ms (40.010 ms → 42.014 ms) at commit 3f2a1c9e0b7d (report 18), p = 0.00002".
    public static func stepText(_ step: StepChange, unit: String) -> String {
        let name =
            step.commit == nil
            ? "report \(step.report)"
            : "commit \(commit(step.commit, report: step.report)) (report \(step.report))"
        let p =
            step.pValue <= 0
            ? ""
            : step.pValue < 0.000_001
                ? ", p < 0.000001"
                : ", p = \(Milliseconds.number(step.pValue, decimals: step.pValue < 0.001 ? 6 : 3))"
        return
            "step \(shift(step.shift, unit: unit)) (\(value(step.before, unit: unit)) → \(value(step.after, unit: unit))) at \(name)\(p)"
    }
}
