import PremainModel

/// `premain field compare`: rows of two field reports matched by executable × scenario ×
/// temperature, each percentile of time to main differenced with the interval
/// `FieldCompareReport` documents, and judged: regression when the interval lies wholly above
/// +threshold, improvement when wholly below −threshold, no change when wholly inside
/// ±threshold, inconclusive otherwise (also without an interval). The verdict is the worst
/// gated percentile's over all rows; no matched row is inconclusive.
public enum FieldComparison {
    /// What went wrong choosing the rows: one line.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    struct MatchKey: Hashable {
        var executable: String
        var scenario: String?
        var temperature: FieldTemperature
    }

    /// Compares `old` with `new`. `oldVersion`/`newVersion` keep only the rows of that build ID
    /// (a prefix is enough); without them a side must hold one version per executable ×
    /// scenario × temperature, else a problem names the executable.
    public static func compare(
        old: FieldReport, new: FieldReport, oldSource: String, newSource: String, oldVersion: String?,
        newVersion: String?, settings: FieldCompareSettings, tool: ToolInfo = .current
    ) throws(Problem) -> FieldCompareReport {
        let oldRows = try select(old.rows, version: oldVersion, side: "old")
        let newRows = try select(new.rows, version: newVersion, side: "new")
        var rows: [FieldRowComparison] = []
        var unmatched: [String] = []
        for (key, newRow) in newRows.sorted(by: { order($0.key, $1.key) }) {
            guard let oldRow = oldRows[key] else {
                unmatched.append("only in new: " + describe(key))
                continue
            }
            guard let oldTimes = oldRow.timeToMain, let newTimes = newRow.timeToMain else {
                unmatched.append("no time to main on one side: " + describe(key))
                continue
            }
            let percentiles = FieldPercentile.allCases.compactMap { percentile -> FieldPercentileDifference? in
                guard let before = oldTimes[percentile], let after = newTimes[percentile] else { return nil }
                return difference(before, after, settings: settings)
            }
            let gated = percentiles.filter(\.gated).map(\.verdict)
            rows.append(
                FieldRowComparison(
                    executable: key.executable, scenario: key.scenario, temperature: key.temperature,
                    oldVersion: oldRow.buildId, newVersion: newRow.buildId, oldSamples: oldTimes.samples,
                    newSamples: newTimes.samples, verdict: worst(gated), percentiles: percentiles))
        }
        for key in oldRows.keys.sorted(by: order) where newRows[key] == nil {
            unmatched.append("only in old: " + describe(key))
        }
        let verdict = rows.isEmpty ? VerdictStatus.inconclusive : worst(rows.map(\.verdict))
        var reasons: [String] = []
        if rows.isEmpty {
            reasons.append("no executable × scenario × temperature is in both reports with a time to main")
        }
        for row in rows where row.verdict == verdict {
            for change in row.percentiles where change.gated && change.verdict == verdict {
                let interval =
                    change.lowMs.flatMap { low in
                        change.highMs.map { "[\(Milliseconds.signed(low)), \(Milliseconds.signed($0))]" }
                    }
                    ?? "no interval (too few launches)"
                reasons.append(
                    "\(describe(MatchKey(executable: row.executable, scenario: row.scenario, temperature: row.temperature))) \(change.percentile.rawValue): \(Milliseconds.signed(change.differenceMs)) \(interval), threshold ±\(Milliseconds.text(change.thresholdMs))"
                )
            }
        }
        return FieldCompareReport(
            tool: tool, verdict: verdict, reasons: reasons,
            old: .init(source: oldSource, version: oldVersion), new: .init(source: newSource, version: newVersion),
            rows: rows, unmatched: unmatched, settings: settings)
    }

    /// One percentile's difference and verdict.
    public static func difference(_ old: FieldQuantile, _ new: FieldQuantile, settings: FieldCompareSettings)
        -> FieldPercentileDifference
    {
        let threshold = settings.threshold(oldMs: old.valueMs)
        var low: Double? = nil
        var high: Double? = nil
        if let newLow = new.lowMs, let newHigh = new.highMs, let oldLow = old.lowMs, let oldHigh = old.highMs {
            low = newLow - oldHigh
            high = newHigh - oldLow
        }
        let verdict: VerdictStatus
        if let low, let high {
            if low > threshold {
                verdict = .regression
            } else if high < -threshold {
                verdict = .improvement
            } else if low >= -threshold && high <= threshold {
                verdict = .noChange
            } else {
                verdict = .inconclusive
            }
        } else {
            verdict = .inconclusive
        }
        return FieldPercentileDifference(
            percentile: old.percentile, oldMs: old.valueMs, newMs: new.valueMs, differenceMs: new.valueMs - old.valueMs,
            lowMs: low, highMs: high, thresholdMs: threshold, verdict: verdict,
            gated: settings.gated.contains(old.percentile))
    }

    /// The worst of `verdicts` in compare's order (regression, inconclusive, improvement, no
    /// change); no change for none.
    static func worst(_ verdicts: [VerdictStatus]) -> VerdictStatus {
        verdicts.reduce(VerdictStatus.noChange) { $0.worse($1) }
    }

    static func select(_ rows: [FieldRow], version: String?, side: String) throws(Problem) -> [MatchKey: FieldRow] {
        var chosen: [MatchKey: FieldRow] = [:]
        for row in rows {
            if let version, !(row.buildId ?? "").hasPrefix(version) { continue }
            let key = MatchKey(executable: row.executable, scenario: row.scenario, temperature: row.temperature)
            if let other = chosen[key], other.buildId != row.buildId {
                throw Problem(
                    "the \(side) side holds several versions of \(describe(key)) (\(other.buildId ?? "none"), \(row.buildId ?? "none")); choose one with --\(side)-version"
                )
            }
            chosen[key] = row
        }
        if let version, chosen.isEmpty {
            throw Problem("the \(side) side has no launch of version \(version)")
        }
        return chosen
    }

    static func describe(_ key: MatchKey) -> String {
        key.executable + (key.scenario.map { " \($0)" } ?? "") + " (\(key.temperature.rawValue))"
    }

    static func order(_ a: MatchKey, _ b: MatchKey) -> Bool {
        (a.executable, a.scenario ?? "", a.temperature.rawValue) < (
            b.executable, b.scenario ?? "", b.temperature.rawValue
        )
    }
}
