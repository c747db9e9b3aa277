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

    struct RowKey {
        var group: Int32
        var temperature: FieldTemperature
    }

    /// Times of one row, in nanoseconds.
    struct RowTimes {
        var launches = 0
        var estimated = 0
        var toMain: [Int64] = []
        var loaderToMain: [Int64] = []
        /// Mark name index → birth to the launch's first such mark.
        var marks: [Int32: [Int64]] = [:]
    }

    static func report(_ records: FieldRecords, thresholds: FieldThresholds, sources: [String], tool: ToolInfo)
        -> FieldReport
    {
        var counts: [FieldExclusion: Int] = [.malformed: records.malformed, .otherKind: records.otherKind]
        counts[.dropped] = records.dropped
        let chains = execChains(records.launches)
        counts[.execdAway] = chains.execdAway
        let marks = attachMarks(records)
        counts[.marksWithoutLaunch] = marks.withoutLaunch
        let sorted = sortIntoRows(records, excluded: chains.excluded, marks: marks, thresholds: thresholds)
        counts[.clockInconsistent] = sorted.inconsistent
        counts[.overSixtySeconds] = sorted.overLimit
        counts[.t0Missing] = sorted.withoutBirth
        let (built, withoutMark) = rows(sorted, records)

        let clocks: [FieldClockSource: Int] = [
            .env: sorted.clockCounts[Int(FieldClockSourceByte.env.rawValue)],
            .schedstat: sorted.clockCounts[Int(FieldClockSourceByte.schedstat.rawValue)],
            .none: sorted.clockCounts[Int(FieldClockSourceByte.none.rawValue)],
        ]
        let writes = records.fileWrites.sorted()
        let population = FieldPopulation(
            launches: records.launches.count, hosts: sorted.hosts.count, users: sorted.users.count,
            boots: sorted.boots.count, oldestFileWrite: writes.first.map(isoDate),
            newestFileWrite: writes.last.map(isoDate))
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

    /// Exec chains: records of one process with one birth; the last (latest main) is the
    /// launch, the earlier ones are `excluded` and counted as exec'd away.
    static func execChains(_ launches: [FieldLaunch]) -> (excluded: [Bool], execdAway: Int) {
        var excluded = [Bool](repeating: false, count: launches.count)
        var execdAway = 0
        var chains = FieldHashTable(capacity: launches.count)
        for index in launches.indices where launches[index].clock != .none {
            let launch = launches[index]
            let hash = FieldHashTable.mix(
                launch.boot ^ FieldHashTable.mix(UInt64(bitPattern: launch.pid) ^ UInt64(bitPattern: launch.t0) << 20))
            let slot = chains.slot(hash: hash) { other in
                let known = launches[Int(other)]
                return known.boot == launch.boot && known.pid == launch.pid && known.t0 == launch.t0
                    && known.clock != .none
            }
            if let previous = chains[slot].map(Int.init) {
                let earlier = launches[previous].main <= launch.main ? previous : index
                excluded[earlier] = true
                execdAway += 1
                chains[slot] = Int32(earlier == previous ? index : previous)
            } else {
                chains[slot] = Int32(index)
            }
        }
        return (excluded, execdAway)
    }

    /// Marks joined to launches: each to the latest launch of the same boot and pid whose main
    /// is earlier. The marks of launch i are `head[i]`, then `next` of each (indices into
    /// `records.marks`); `head` is empty when there are no marks.
    struct MarkLinks {
        var head: [Int32]
        var next: [Int32]
        var withoutLaunch = 0
    }

    static func attachMarks(_ records: FieldRecords) -> MarkLinks {
        let launches = records.launches
        var links = MarkLinks(
            head: [Int32](repeating: -1, count: records.marks.isEmpty ? 0 : launches.count),
            next: [Int32](repeating: -1, count: records.marks.count))
        guard !records.marks.isEmpty else { return links }
        // Launches of one process chained through `next`, the table holding the first.
        var processes = FieldHashTable(capacity: launches.count)
        var next = [Int32](repeating: -1, count: launches.count)
        func processHash(_ boot: UInt64, _ pid: Int64) -> UInt64 {
            FieldHashTable.mix(boot ^ FieldHashTable.mix(UInt64(bitPattern: pid)))
        }
        for index in launches.indices {
            let launch = launches[index]
            let slot = processes.slot(hash: processHash(launch.boot, launch.pid)) { other in
                launches[Int(other)].boot == launch.boot && launches[Int(other)].pid == launch.pid
            }
            next[index] = processes[slot] ?? -1
            processes[slot] = Int32(index)
        }
        for (markIndex, mark) in records.marks.enumerated() {
            let slot = processes.slot(hash: processHash(mark.boot, mark.pid)) { other in
                launches[Int(other)].boot == mark.boot && launches[Int(other)].pid == mark.pid
            }
            var best: Int? = nil
            var cursor = processes[slot] ?? -1
            while cursor >= 0 {
                let index = Int(cursor)
                if launches[index].main <= mark.time, best.map({ launches[$0].main < launches[index].main }) ?? true {
                    best = index
                }
                cursor = next[index]
            }
            guard let best else {
                links.withoutLaunch += 1
                continue
            }
            links.next[markIndex] = links.head[best]
            links.head[best] = Int32(markIndex)
        }
        return links
    }

    /// The launches sorted into rows (group × temperature), with what was left out and why,
    /// and the distinct hosts, users and boots of every launch record.
    struct SortedLaunches {
        var rows: [RowTimes] = []
        var keys: [RowKey] = []
        var clockCounts = [Int](repeating: 0, count: 3)
        var inconsistent = 0
        var overLimit = 0
        var withoutBirth = 0
        var hosts: FieldDistinctCounter
        var users: FieldDistinctCounter
        var boots: FieldDistinctCounter
    }

    static func sortIntoRows(
        _ records: FieldRecords, excluded: [Bool], marks: MarkLinks, thresholds: FieldThresholds
    ) -> SortedLaunches {
        let launches = records.launches
        // Row of group g and temperature t at rowOf[g × 3 + t].
        let temperatures = FieldTemperature.allCases
        var rowOf = [Int32](repeating: -1, count: records.groups.count * temperatures.count)
        var sorted = SortedLaunches(
            hosts: FieldDistinctCounter(capacity: launches.count),
            users: FieldDistinctCounter(capacity: launches.count),
            boots: FieldDistinctCounter(capacity: launches.count))
        for (index, launch) in launches.enumerated() {
            sorted.hosts.insert(launch.host)
            sorted.users.insert(UInt64(bitPattern: launch.uid))
            sorted.boots.insert(launch.boot)
            if excluded[index] { continue }
            let hasBirth = launch.clock != .none
            let loader = launch.main - launch.version
            let toMain = launch.main - launch.t0
            if loader < 0 || (hasBirth && launch.version < launch.t0) {
                sorted.inconsistent += 1
                continue
            }
            if loader > limitNs || (hasBirth && toMain > limitNs) {
                sorted.overLimit += 1
                continue
            }
            sorted.clockCounts[Int(launch.clock.rawValue)] += 1
            let temperature = thresholds.temperature(
                majorFaults: Int(launch.majorFaults), readBytes: launch.readBytes < 0 ? nil : Int(launch.readBytes))
            let slot = Int(launch.group) * temperatures.count + (temperatures.firstIndex(of: temperature) ?? 0)
            let row: Int
            if rowOf[slot] >= 0 {
                row = Int(rowOf[slot])
            } else {
                row = sorted.rows.count
                rowOf[slot] = Int32(row)
                sorted.rows.append(RowTimes())
                sorted.keys.append(RowKey(group: launch.group, temperature: temperature))
            }
            sorted.rows[row].launches += 1
            if launch.clock == .schedstat { sorted.rows[row].estimated += 1 }
            sorted.rows[row].loaderToMain.append(loader)
            guard hasBirth else {
                sorted.withoutBirth += 1
                continue
            }
            sorted.rows[row].toMain.append(toMain)
            if !marks.head.isEmpty && marks.head[index] >= 0 {
                // The first mark of each name.
                var first: [Int32: Int64] = [:]
                var cursor = marks.head[index]
                while cursor >= 0 {
                    let mark = records.marks[Int(cursor)]
                    if first[mark.name].map({ mark.time < $0 }) ?? true { first[mark.name] = mark.time }
                    cursor = marks.next[Int(cursor)]
                }
                for (name, time) in first { sorted.rows[row].marks[name, default: []].append(time - launch.t0) }
            }
        }
        return sorted
    }

    /// The report's rows from the sorted launches, largest first, and per mark name the
    /// launches (with a birth) that lack it.
    static func rows(_ sorted: SortedLaunches, _ records: FieldRecords) -> ([FieldRow], [Int32: Int]) {
        var withoutMark: [Int32: Int] = [:]
        var built: [FieldRow] = []
        for (key, times) in zip(sorted.keys, sorted.rows) {
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
                    temperature: key.temperature, samples: times.launches, estimatedBirths: times.estimated,
                    timeToMain: FieldDistribution(nanoseconds: times.toMain), loaderToMain: loader,
                    marks: marks.sorted { $0.name < $1.name }))
        }
        built.sort(by: rowOrder)
        return (built, withoutMark)
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

    /// `2026-12-05T02:57:24Z` (`isoDate`'s text: the report's file write times) as nanoseconds since the epoch;
    /// `nil` for any other text.
    public static func unixNanoseconds(_ text: String) -> UInt64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? { Int(String(decoding: bytes[range], as: UTF8.self)) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days from civil (Howard Hinnant's algorithm), the inverse of the report's date.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return seconds < 0 ? nil : UInt64(seconds) * 1_000_000_000
    }
}
