import PremainModel

/// The joining rules of docs/field-record.md applied to records read from spool folders, and
/// the rows of a `FieldReport`: exec chains (the last image of a process is the launch), marks
/// to launches (the latest launch of the same boot and pid whose main is earlier), exclusions
/// counted, temperature by `FieldThresholds`, and one row per executable × build ID ×
/// scenario × temperature.
public enum FieldReportBuilder {
    /// Launches over this long to main are left out (a stopped or debugged process).
    public static let limitNs: Int64 = 60_000_000_000

    /// The report of the spool folders `folders` (every `*.records` and `*.drops` file in each).
    /// Throws naming the folder or file that cannot be listed or read.
    public static func report(
        folders: [String], thresholds: FieldThresholds = FieldThresholds(), tool: ToolInfo = .current
    ) throws(FieldReadError) -> FieldReport {
        var reader = FieldSpoolReader()
        for folder in folders { try reader.read(folder: folder) }
        return report(reader.records, thresholds: thresholds, sources: folders, tool: tool)
    }

    /// The report of `bytes`, the lines of one records file (tests).
    public static func report(
        recordBytes bytes: [UInt8], drops: Int = 0, thresholds: FieldThresholds = FieldThresholds(),
        tool: ToolInfo = .current
    ) -> FieldReport {
        var reader = FieldSpoolReader()
        reader.read(bytes: bytes)
        reader.records.dropped += drops
        return report(reader.records, thresholds: thresholds, sources: [], tool: tool)
    }

    struct ChainKey: Hashable {
        var boot: UInt64
        var pid: Int64
        var t0: Int64
    }

    struct ProcessKey: Hashable {
        var boot: UInt64
        var pid: Int64
    }

    struct RowKey: Hashable {
        var group: Int32
        var temperature: FieldTemperature
    }

    /// Times of one row, in nanoseconds.
    struct RowTimes {
        var launches = 0
        var toMain: [Int64] = []
        var loaderToMain: [Int64] = []
        /// Mark name index → birth to the launch's first such mark.
        var marks: [Int32: [Int64]] = [:]
    }

    static func report(_ records: FieldRecords, thresholds: FieldThresholds, sources: [String], tool: ToolInfo)
        -> FieldReport
    {
        let launches = records.launches
        var excluded = [Bool](repeating: false, count: launches.count)
        var counts: [FieldExclusion: Int] = [.malformed: records.malformed, .otherKind: records.otherKind]
        counts[.dropped] = records.dropped

        // Exec chains: records of one process with one birth; the last (latest main) is the launch.
        var chainLast: [ChainKey: Int] = [:]
        chainLast.reserveCapacity(launches.count)
        for (index, launch) in launches.enumerated() where launch.clock != .none {
            let key = ChainKey(boot: launch.boot, pid: launch.pid, t0: launch.t0)
            if let previous = chainLast[key] {
                let earlier = launches[previous].main <= launch.main ? previous : index
                excluded[earlier] = true
                counts[.execdAway, default: 0] += 1
                chainLast[key] = earlier == previous ? index : previous
            } else {
                chainLast[key] = index
            }
        }

        // Marks to launches: the latest launch of the same boot and pid whose main is earlier.
        var markOf: [Int: [(name: Int32, time: Int64)]] = [:]
        if !records.marks.isEmpty {
            var byProcess: [ProcessKey: [Int]] = [:]
            for (index, launch) in launches.enumerated() {
                byProcess[ProcessKey(boot: launch.boot, pid: launch.pid), default: []].append(index)
            }
            for mark in records.marks {
                let candidates = byProcess[ProcessKey(boot: mark.boot, pid: mark.pid)] ?? []
                var best: Int? = nil
                for index in candidates where launches[index].main <= mark.time {
                    if best.map({ launches[$0].main < launches[index].main }) ?? true { best = index }
                }
                guard let best else {
                    counts[.marksWithoutLaunch, default: 0] += 1
                    continue
                }
                markOf[best, default: []].append((mark.name, mark.time))
            }
        }

        var rowIndex: [RowKey: Int] = [:]
        var rows: [RowTimes] = []
        var keys: [RowKey] = []
        var hosts = Set<UInt64>()
        var users = Set<Int64>()
        var boots = Set<UInt64>()
        var clocks: [FieldClockSource: Int] = [:]
        for (index, launch) in launches.enumerated() {
            hosts.insert(launch.host)
            users.insert(launch.uid)
            boots.insert(launch.boot)
            if excluded[index] { continue }
            let hasBirth = launch.clock != .none
            let loader = launch.main - launch.version
            let toMain = launch.main - launch.t0
            if loader < 0 || (hasBirth && launch.version < launch.t0) {
                counts[.clockInconsistent, default: 0] += 1
                continue
            }
            if loader > limitNs || (hasBirth && toMain > limitNs) {
                counts[.overSixtySeconds, default: 0] += 1
                continue
            }
            let source: FieldClockSource =
                launch.clock == .env ? .env : launch.clock == .schedstat ? .schedstat : .none
            clocks[source, default: 0] += 1
            let temperature = thresholds.temperature(
                majorFaults: Int(launch.majorFaults), readBytes: launch.readBytes < 0 ? nil : Int(launch.readBytes))
            let key = RowKey(group: launch.group, temperature: temperature)
            let row: Int
            if let known = rowIndex[key] {
                row = known
            } else {
                row = rows.count
                rowIndex[key] = row
                rows.append(RowTimes())
                keys.append(key)
            }
            rows[row].launches += 1
            rows[row].loaderToMain.append(loader)
            if hasBirth {
                rows[row].toMain.append(toMain)
                if let marks = markOf[index] {
                    var seen = Set<Int32>()
                    for mark in marks.sorted(by: { $0.time < $1.time }) where seen.insert(mark.name).inserted {
                        rows[row].marks[mark.name, default: []].append(mark.time - launch.t0)
                    }
                }
            } else {
                counts[.t0Missing, default: 0] += 1
            }
        }

        var withoutMark: [Int32: Int] = [:]
        var built: [FieldRow] = []
        for (key, times) in zip(keys, rows) {
            let group = records.groups[Int(key.group)]
            guard let loader = FieldDistribution(nanoseconds: times.loaderToMain) else { continue }
            var marks: [FieldMark] = []
            for (name, values) in times.marks {
                guard let distribution = FieldDistribution(nanoseconds: values) else { continue }
                let missing = times.toMain.count - values.count
                withoutMark[name, default: 0] += missing
                marks.append(
                    FieldMark(name: records.markNames[Int(name)], missing: missing, distribution: distribution))
            }
            built.append(
                FieldRow(
                    executable: group.executable, buildId: group.buildId, scenario: group.scenario,
                    temperature: key.temperature, samples: times.launches,
                    timeToMain: FieldDistribution(nanoseconds: times.toMain), loaderToMain: loader,
                    marks: marks.sorted { $0.name < $1.name }))
        }
        built.sort(by: rowOrder)

        let writes = records.fileWrites.sorted()
        let population = FieldPopulation(
            launches: launches.count, hosts: hosts.count, users: users.count, boots: boots.count,
            oldestFileWrite: writes.first.map(isoDate), newestFileWrite: writes.last.map(isoDate))
        let exclusions =
            FieldExclusion.allCases.map { FieldExclusionCount($0, counts[$0] ?? 0) }
            + withoutMark.map { (records.markNames[Int($0.key)], $0.value) }.sorted { $0.0 < $1.0 }
            .map { FieldExclusionCount.withoutMark($0.0, $0.1) }
        let contract = FieldContract(
            population: population,
            clockSources: FieldClockSource.allCases.map { FieldClockCount(source: $0, count: clocks[$0] ?? 0) },
            exclusions: exclusions, thresholds: thresholds, sources: sources)
        return FieldReport(tool: tool, rows: built, contract: contract)
    }

    /// Largest sample first; then executable, version, scenario and temperature, so the order
    /// never depends on a dictionary's.
    static func rowOrder(_ a: FieldRow, _ b: FieldRow) -> Bool {
        if a.samples != b.samples { return a.samples > b.samples }
        if a.executable != b.executable { return a.executable < b.executable }
        if a.buildId != b.buildId { return (a.buildId ?? "") < (b.buildId ?? "") }
        if a.scenario != b.scenario { return (a.scenario ?? "") < (b.scenario ?? "") }
        return a.temperature.rawValue < b.temperature.rawValue
    }

    /// Seconds since the epoch as `2026-12-05T02:57:24Z`.
    static func isoDate(_ seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        // Civil from days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3_600)):\(two(rest % 3_600 / 60)):\(two(rest % 60))Z"
    }
}
