/// The line of the CLI's progress display, pure, so its wording and its time left are tested
/// without a terminal: a bar with the count and, once a second has gone by, the time left at
/// the rate so far; or a step whose total is not known yet with what it has found.
public enum ProgressText {
    /// Columns of the bar between its brackets.
    public static let barWidth = 30

    /// `auditing [#########---------------------] 120/400, about 12 s left`; no time left
    /// before `elapsedSeconds` reaches 1 or before the first item is done.
    public static func bar(_ label: String, done: Int, total: Int, elapsedSeconds: Double) -> String {
        let percent = total > 0 ? min(100, max(0, done) * 100 / total) : 0
        let filled = percent * barWidth / 100
        var line =
            "\(label) [\(String(repeating: "#", count: filled))\(String(repeating: "-", count: barWidth - filled))] \(done)/\(total)"
        if let left = secondsLeft(done: done, total: total, elapsedSeconds: elapsedSeconds) {
            line += ", " + timeLeft(left)
        }
        return line
    }

    /// `auditing: walking folders… 1,234 files found`: a step of unknown length.
    public static func step(_ label: String, _ text: String) -> String { "\(label): \(text)…" }

    /// The seconds left at the rate so far; `nil` until one item is done and a second has gone.
    public static func secondsLeft(done: Int, total: Int, elapsedSeconds: Double) -> Double? {
        guard done > 0, total > done, elapsedSeconds >= 1 else { return nil }
        return elapsedSeconds / Double(done) * Double(total - done)
    }

    /// "about 8 s left", "about 3 min left", "about 2 h 5 min left".
    public static func timeLeft(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        if whole < 60 { return "about \(max(1, whole)) s left" }
        let minutes = (whole + 30) / 60
        if minutes < 60 { return "about \(minutes) min left" }
        return "about \(minutes / 60) h \(minutes % 60) min left"
    }
}
