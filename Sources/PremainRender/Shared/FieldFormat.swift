import PremainModel

/// The phrases every field renderer shares (text, Markdown, HTML), so the four formats say the
/// same thing in the same order: the answer (each row's p50 and p90 with interval and n), the
/// details, then the contract.
enum FieldFormat {
    /// `12.345 ms [12.101, 12.600]`; an end the sample is too small for is `…`.
    static func quantile(_ quantile: FieldQuantile?) -> String {
        guard let quantile else { return "-" }
        let low = quantile.lowMs.map { Milliseconds.number($0) } ?? "…"
        let high = quantile.highMs.map { Milliseconds.number($0) } ?? "…"
        return "\(Milliseconds.text(quantile.valueMs)) [\(low), \(high)]"
    }

    /// The first 12 hex digits of a build ID; `none`.
    static func version(_ buildId: String?) -> String {
        buildId.map { String($0.prefix(12)) } ?? "none"
    }

    static func scenario(_ scenario: String?) -> String { scenario ?? "(no argument)" }

    /// A row's scenario with the declared launch it matches: `version (--version)`, `serve`
    /// when the launch is named as its first argument; the scenario alone when it matches none.
    static func scenario(_ row: FieldRow) -> String {
        guard let launch = row.launch, launch != row.scenario else { return scenario(row.scenario) }
        return "\(launch) (\(scenario(row.scenario)))"
    }

    /// ` serve`, ` version (--version)` for a row that matches a declared launch; `` without
    /// either.
    static func scenarioSuffix(_ row: FieldRow) -> String {
        if row.launch != nil { return " " + scenario(row) }
        return row.scenario.map { " \($0)" } ?? ""
    }

    /// The headline: `3 rows from 1,000 launches on 2 hosts (1 user, 1 boot)`.
    static func headline(_ report: FieldReport) -> String {
        let population = report.contract.population
        return
            "\(plural(report.rows.count, "row")) from \(plural(population.launches, "launch record")) on \(plural(population.hosts, "host")) (\(plural(population.users, "user")), \(plural(population.boots, "boot")))"
    }

    /// `1 host`, `3 hosts`, `1,200 launch records`.
    static func plural(_ count: Int, _ word: String) -> String {
        "\(CountText.grouped(UInt64(max(count, 0)))) \(word)\(count == 1 ? "" : "s")"
    }

    /// The lead table's header and one row of cells per report row (plain text).
    static let leadHeader = ["executable", "version", "scenario", "temperature", "n", "p50 to main", "p90 to main"]

    static func leadRow(_ row: FieldRow) -> [String] {
        [
            row.executable, version(row.buildId), scenario(row), row.temperature.rawValue,
            "\(row.timeToMain?.samples ?? 0)", quantile(row.timeToMain?[.p50]), quantile(row.timeToMain?[.p90]),
        ]
    }

    /// The quantities of a row, each named: time to main, loader start to main, each mark.
    static func quantities(_ row: FieldRow) -> [(name: String, distribution: FieldDistribution, missing: Int?)] {
        var result: [(String, FieldDistribution, Int?)] = []
        if let toMain = row.timeToMain { result.append(("time to main", toMain, nil)) }
        result.append(("loader start to main", row.loaderToMain, nil))
        for mark in row.marks { result.append(("time to mark '\(mark.name)'", mark.distribution, mark.missing)) }
        return result
    }

    /// Header and cells of a row's detail table: every percentile with its interval, max.
    static let detailHeader = ["quantity", "n"] + FieldPercentile.allCases.map(\.rawValue) + ["max"]

    static func detailRow(_ name: String, _ distribution: FieldDistribution, missing: Int?) -> [String] {
        [name, "\(distribution.samples)" + (missing.map { $0 > 0 ? " (\($0) without)" : "" } ?? "")]
            + FieldPercentile.allCases.map { quantile(distribution[$0]) } + [Milliseconds.text(distribution.maxMs)]
    }

    /// `/usr/bin/tool serve (warm, abc123def456)`.
    static func title(_ row: FieldRow) -> String {
        "\(row.executable)\(scenarioSuffix(row)) (\(row.temperature.rawValue), \(version(row.buildId)))"
    }

    /// The contract as (label, text) lines.
    static func contract(_ contract: FieldContract) -> [(String, String)] {
        let population = contract.population
        var window = ""
        if let oldest = population.oldestFileWrite, let newest = population.newestFileWrite {
            window = "; spool files last written \(oldest) to \(newest) (records carry monotonic times only)"
        }
        let thresholds = contract.thresholds
        let temperature =
            "warm: no major fault and < \(bytes(thresholds.warmBelowBytes)) read; cold: ≥ \(bytes(thresholds.coldFromBytes)) read or ≥ \(thresholds.coldFromMajorFaults) major faults; mixed otherwise"
        return [
            (
                "population",
                "\(plural(population.launches, "launch record")), \(plural(population.hosts, "host")), \(plural(population.users, "user")), \(plural(population.boots, "boot"))\(window)"
            ),
            ("start", contract.start),
            ("end", contract.end),
            (
                "clock",
                contract.clockSources.map { "\($0.source.title) \(CountText.grouped(UInt64($0.count)))" }.joined(
                    separator: " · ")
            ),
            ("temperature", temperature),
            (
                "excluded",
                contract.exclusions.map { "\($0.title) \(CountText.grouped(UInt64(max($0.count, 0))))" }.joined(
                    separator: " · ")
            ),
            ("unseen", contract.unseen.joined(separator: "; ")),
            ("read", contract.sources.isEmpty ? "-" : contract.sources.joined(separator: ", ")),
        ]
    }

    /// `64 KiB`, `1 MiB`, or bytes.
    static func bytes(_ count: Int) -> String {
        if count >= 1 << 20 && count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10 && count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return "\(count) B"
    }

    /// Every note of a row, prefixed by its quantity.
    static func notes(_ row: FieldRow) -> [String] {
        var notes: [String] = []
        if row.estimatedBirths > 0 {
            notes.append(
                "\(row.estimatedBirths) of \(row.timeToMain?.samples ?? 0) births are the schedstat estimate (a lower bound), the others exact"
            )
        }
        return notes
            + quantities(row).flatMap { quantity in quantity.distribution.notes.map { "\(quantity.name): \($0)" } }
    }
}
