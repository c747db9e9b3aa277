import PremainModel

/// Splits each run's launch into phases and whose objects (see `LaunchBreakdown`), then
/// summarizes each row's per-run sums over the runs. Pure.
struct BreakdownBuilder {
    let aggregator: ObjectAggregator

    /// `nil` when no run has a loader timeline or reached the launch's end.
    func build(_ samples: [LaunchSample]) -> LaunchBreakdown? {
        let end: Milestone =
            samples.contains { $0.readyMs != nil }
            ? .ready
            : (samples.contains { $0.firstOutputMs != nil } ? .firstOutput : .exit)
        func endMs(_ sample: LaunchSample) -> Double? {
            switch end {
            case .ready: return sample.readyMs
            case .firstOutput: return sample.firstOutputMs
            default: return sample.exitMs
            }
        }
        struct Key: Hashable {
            var phase: LaunchBreakdown.Phase
            var group: ObjectGroup?
        }
        var values: [Key: [Double]] = [:]
        var mappingValues: [ObjectGroup: [Double]] = [:]
        var relocationValues: [ObjectGroup: [Double]] = [:]
        var objects: [Key: Set<String>] = [:]
        var launches: [Double] = []
        var phases: [Double] = []
        var accounted: [Double] = []
        var lines = 0
        var sameStamp = 0
        var split = false
        for sample in samples {
            guard let timeline = sample.loader, let done = timeline.loaderDoneMs, let main = timeline.mainMs,
                let launchEnd = endMs(sample)
            else { continue }
            lines += timeline.lines ?? 0
            sameStamp += timeline.sameStampLines ?? 0
            let run = aggregator.objects(of: timeline)
            func group(_ key: String) -> ObjectGroup { ObjectGroup.of(path: key, role: run.roles[key] ?? .library) }
            var mapping: [ObjectGroup: Double] = [:]
            var relocation: [ObjectGroup: Double] = [:]
            var initializers: [ObjectGroup: Double] = [:]
            for (key, value) in run.mapping {
                mapping[group(key), default: 0] += value
                objects[Key(phase: .loading, group: group(key)), default: []].insert(key)
            }
            for (key, value) in run.relocation {
                relocation[group(key), default: 0] += value
                objects[Key(phase: .loading, group: group(key)), default: []].insert(key)
            }
            for (key, value) in run.initializers {
                initializers[group(key), default: 0] += value
                objects[Key(phase: .initializers, group: group(key)), default: []].insert(key)
            }
            let loaded = mapping.values.reduce(0, +) + relocation.values.reduce(0, +)
            let phase = max(0, done - timeline.loaderStartMs)
            split = split || !run.mapping.isEmpty || !run.relocation.isEmpty
            values[Key(phase: .loading, group: nil), default: []].append(phase)
            launches.append(launchEnd)
            phases.append(phase)
            if phase > 0 { accounted.append(loaded / phase) }
            values[Key(phase: .exec), default: []].append(timeline.loaderStartMs)
            values[Key(phase: .loaderOther), default: []].append(max(0, phase - loaded))
            values[Key(phase: .program), default: []].append(max(0, launchEnd - main))
            for group in ObjectGroup.allCases {
                if mapping[group] != nil || relocation[group] != nil {
                    let m = mapping[group] ?? 0
                    let r = relocation[group] ?? 0
                    mappingValues[group, default: []].append(m)
                    relocationValues[group, default: []].append(r)
                    values[Key(phase: .loading, group: group), default: []].append(m + r)
                }
                if let value = initializers[group] {
                    values[Key(phase: .initializers, group: group), default: []].append(value)
                }
            }
        }
        guard let launch = TimeSummary(samplesMs: launches), launch.medianMs > 0 else { return nil }
        var rows: [LaunchBreakdown.Row] = []
        func add(_ key: Key) {
            guard let time = values[key].flatMap({ TimeSummary(samplesMs: $0) }) else { return }
            var row = LaunchBreakdown.Row(
                phase: key.phase, group: key.group, objects: objects[key]?.count,
                time: time, share: time.medianMs / launch.medianMs)
            if key.phase == .loading, let group = key.group {
                row.mapping = mappingValues[group].flatMap { TimeSummary(samplesMs: $0) }
                row.relocation = relocationValues[group].flatMap { TimeSummary(samplesMs: $0) }
            }
            rows.append(row)
        }
        add(Key(phase: .exec))
        if split {
            for group in ObjectGroup.allCases { add(Key(phase: .loading, group: group)) }
            add(Key(phase: .loaderOther))
        } else {
            // Timelines without the loader's per-object lines: the loader phase is one row.
            add(Key(phase: .loading, group: nil))
        }
        for group in ObjectGroup.allCases { add(Key(phase: .initializers, group: group)) }
        add(Key(phase: .program))
        return LaunchBreakdown(
            end: end, launch: launch, rows: rows, loaderPhase: TimeSummary(samplesMs: phases),
            loaderAccountedShare: split ? SampleStatistics.median(accounted) : nil,
            sameStampLines: sameStamp, loaderLines: lines)
    }
}

extension LaunchMeasurement {
    /// Attaches the audit's counts to the objects (by path) and sums them into the breakdown's
    /// loading rows.
    public mutating func attach(facts: [String: ObjectStaticFacts]) {
        for index in objects.indices {
            objects[index].facts = facts[objects[index].path]
        }
        guard var breakdown else { return }
        for index in breakdown.rows.indices where breakdown.rows[index].phase == .loading {
            let group = breakdown.rows[index].group
            let members = objects.filter { $0.group == group && ($0.mapping != nil || $0.relocation != nil) }
            let counted = members.compactMap(\.facts)
            breakdown.rows[index].relocations = counted.isEmpty ? nil : counted.map(\.relocations).reduce(0, +)
        }
        self.breakdown = breakdown
    }
}
