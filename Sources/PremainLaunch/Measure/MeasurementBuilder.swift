import PremainModel

/// Turns the samples of a series into a `LaunchMeasurement`: statistics per milestone and object,
/// failures, observer effect, warnings. Pure: no launching, no clock.
public struct MeasurementBuilder: Sendable {
    public var advisor = WarningAdvisor()

    public init() {}

    /// `samples` are the counted instrumented runs in order; `plain` the uninstrumented ones
    /// (`[]` when there was no such series); `residency` one eviction report per cold run.
    public func build(command: [String], executablePath: String, warmup: Int, cold: Bool,
                      conditions: LaunchConditions, loaderPhasesMissing: String?,
                      samples: [LaunchSample], plain: [LaunchSample],
                      residency: [[PageCacheEvictor.Residency]]) -> LaunchMeasurement {
        let loaderRuns = samples.map(\.loader)
        func summary(_ pick: (LaunchSample) -> Double?) -> TimeSummary? {
            TimeSummary(samplesMs: samples.compactMap(pick))
        }
        let milestones = Milestones(
            loaderStart: summary { $0.loader?.loaderStartMs },
            loaderDone: summary { $0.loader?.loaderDoneMs },
            programInitializers: summary { $0.loader?.initializers.first(where: \.isProgram)?.startMs },
            main: summary { $0.loader?.mainMs },
            firstOutput: summary(\.firstOutputMs),
            exit: summary(\.exitMs))
        let cpuTime = summary(\.cpuMs)

        var missing = loaderPhasesMissing
        if missing == nil, !samples.isEmpty, loaderRuns.allSatisfy({ $0 == nil }) {
            missing = "the loader printed no LD_DEBUG lines (setuid binary, or a loader that ignores LD_DEBUG_OUTPUT)"
        }

        let objects = ObjectAggregator(executablePath: executablePath).aggregate(loaderRuns)
        let medianRun = Self.medianRunIndex(samples)
        var warnings: [MeasurementWarning] = []
        if let runWarning = advisor.runCountWarning(runs: samples.count) { warnings.append(runWarning) }
        for (name, value) in [("main", milestones.main), ("firstOutput", milestones.firstOutput), ("exit", milestones.exit)] {
            if let value { warnings += advisor.warnings(for: value, subject: name) }
        }
        for object in objects {
            if let value = object.initializers, value.medianMs >= 0.5 {
                warnings += advisor.warnings(for: value, subject: object.path).filter { $0.kind != .outliers }
            }
        }
        let failures = Self.failures(samples.map(\.outcome))
        if !failures.isEmpty {
            warnings.append(MeasurementWarning(
                kind: .failedRuns, subject: "series", message: failures.joined(separator: "; "),
                advice: "times include only the milestones each run reached; fix the failure before trusting the figures"))
        }
        if !conditions.pinning.pinned {
            warnings.append(MeasurementWarning(
                kind: .unpinned, subject: "series",
                message: "measurer and target were not pinned to different CPUs (\(conditions.pinning.reason ?? "no reason"))",
                advice: "loader lines may be stamped late; measure on a machine with two or more CPUs"))
        }
        let residencySummary = cold ? Self.residency(residency) : nil
        if let stayed = residencySummary?.filter({ $0.residentPagesMedian > 0 }), !stayed.isEmpty {
            let names = stayed.map { ObjectName.fileName($0.path) }.joined(separator: ", ")
            warnings.append(MeasurementWarning(
                kind: .pagesStayedResident, subject: "series",
                message: "pages stayed in the page cache after eviction: \(names)",
                advice: "files mapped by running processes (libc, the loader) cannot be evicted; those reads stay warm"))
        }

        let plainSeries: UninstrumentedSeries? = plain.isEmpty ? nil : UninstrumentedSeries(
            runs: plain.count, firstOutput: TimeSummary(samplesMs: plain.compactMap(\.firstOutputMs)),
            exit: TimeSummary(samplesMs: plain.compactMap(\.exitMs)), cpu: TimeSummary(samplesMs: plain.compactMap(\.cpuMs)),
            outcomes: plain.map(\.outcome))
        let effect = plainSeries.map { series in
            ObserverEffect(firstOutputRatio: Self.ratio(milestones.firstOutput, series.firstOutput),
                           exitRatio: Self.ratio(milestones.exit, series.exit),
                           cpuRatio: Self.ratio(cpuTime, series.cpu))
        }
        let counts: LoaderCountSummary? = loaderRuns.contains { $0?.startupCounts != nil } ? LoaderCountSummary(
            startup: medianRun.flatMap { samples[$0].loader?.startupCounts } ?? loaderRuns.compactMap { $0?.startupCounts }.first,
            final: medianRun.flatMap { samples[$0].loader?.finalCounts } ?? loaderRuns.compactMap { $0?.finalCounts }.first,
            startupPerRun: loaderRuns.map { $0?.startupCounts }, finalPerRun: loaderRuns.map { $0?.finalCounts }) : nil

        return LaunchMeasurement(
            command: command, runs: samples.count, warmup: warmup, cold: cold, conditions: conditions,
            status: failures.isEmpty ? .ok : .failed, failures: failures, outcomes: samples.map(\.outcome),
            milestones: milestones, targetCPUTime: cpuTime, objects: objects, loaderCounts: counts, loaderPhasesMissing: missing,
            uninstrumented: plainSeries, observerEffect: effect, coldResidency: residencySummary,
            warnings: warnings, medianRun: medianRun, medianRunTimeline: medianRun.flatMap { samples[$0].loader },
            rawSamples: nil)
    }

    /// "N of M runs: message" per distinct failure message, most frequent first. A failure is
    /// what `isFailure` says (by default: not a success, or processes left behind).
    static func failures(_ outcomes: [LaunchOutcome],
                         isFailure: (LaunchOutcome) -> Bool = { !$0.succeeded || $0.processesLeftBehind }) -> [String] {
        var counts: [(String, Int)] = []
        for outcome in outcomes where isFailure(outcome) {
            if let index = counts.firstIndex(where: { $0.0 == outcome.message }) {
                counts[index].1 += 1
            } else {
                counts.append((outcome.message, 1))
            }
        }
        return counts.sorted { $0.1 > $1.1 }.map { "\($0.1) of \(outcomes.count) runs: \($0.0)" }
    }

    /// The run with a loader timeline whose exit (else main) is closest to the median.
    static func medianRunIndex(_ samples: [LaunchSample]) -> Int? {
        let candidates = samples.indices.filter { samples[$0].loader != nil }
        func key(_ sample: LaunchSample) -> Double? { sample.exitMs ?? sample.loader?.mainMs }
        let values = candidates.compactMap { key(samples[$0]) }
        guard let median = SampleStatistics.median(values) else { return candidates.first }
        return candidates.min { abs((key(samples[$0]) ?? .infinity) - median) < abs((key(samples[$1]) ?? .infinity) - median) }
    }

    static func ratio(_ instrumented: TimeSummary?, _ plain: TimeSummary?) -> Double? {
        guard let instrumented, let plain, plain.medianMs > 0 else { return nil }
        return instrumented.medianMs / plain.medianMs
    }

    static func residency(_ runs: [[PageCacheEvictor.Residency]]) -> [ResidencySummary] {
        var order: [String] = []
        var byPath: [String: [PageCacheEvictor.Residency]] = [:]
        for run in runs {
            for record in run {
                if byPath[record.path] == nil { order.append(record.path) }
                byPath[record.path, default: []].append(record)
            }
        }
        return order.compactMap { path in
            guard let records = byPath[path], let last = records.last else { return nil }
            let resident = records.map { Double($0.residentPages) }
            return ResidencySummary(path: path, pages: last.pages,
                                    residentPagesMedian: SampleStatistics.median(resident) ?? 0,
                                    residentPagesMax: records.map(\.residentPages).max() ?? 0,
                                    error: records.compactMap(\.error).first)
        }
    }
}

/// Gathers each object's loader events over runs into `ObjectMeasurement`s.
///
/// Objects are keyed by path. `file=NAME` lines name a DT_NEEDED string, not a path, so a
/// mapped object takes the path of the `calling init` line with the same file name when there
/// is one; otherwise it keeps the name as printed.
struct ObjectAggregator {
    let executablePath: String

    func aggregate(_ runs: [LoaderTimeline?]) -> [ObjectMeasurement] {
        var order: [String] = []
        var roles: [String: ObjectMeasurement.Role] = [:]
        var mapped: [String: [Double]] = [:]
        var starts: [String: [Double]] = [:]
        var durations: [String: [Double]] = [:]
        func note(_ key: String, _ role: ObjectMeasurement.Role) {
            if roles[key] == nil { order.append(key); roles[key] = role }
        }
        for case let timeline? in runs {
            var pathByName: [String: String] = [:]
            for call in timeline.initializers where !call.isProgram {
                pathByName[ObjectName.fileName(call.path)] = call.path
            }
            for call in timeline.initializers {
                let key = call.isProgram ? executablePath : call.path
                let role: ObjectMeasurement.Role = call.isProgram ? .executable
                    : (ObjectName.fileName(call.path).hasPrefix("ld-linux") ? .loader : .library)
                note(key, role)
                starts[key, default: []].append(call.startMs)
                if let duration = call.durationMs { durations[key, default: []].append(duration) }
            }
            for object in timeline.objects {
                guard let at = object.mappedMs else { continue }
                let key = object.name.contains("/") ? object.name : (pathByName[object.name] ?? object.name)
                note(key, .library)
                mapped[key, default: []].append(at)
            }
        }
        let measured = order.enumerated().map { index, key in (index, 
            ObjectMeasurement(path: key, role: roles[key] ?? .library,
                              mapped: mapped[key].flatMap { TimeSummary(samplesMs: $0) },
                              initializersStart: starts[key].flatMap { TimeSummary(samplesMs: $0) },
                              initializers: durations[key].flatMap { TimeSummary(samplesMs: $0) }))
        }
        // Initializer order first (the waterfall's order), then objects that only were mapped.
        // Ties (objects whose initializers take no measurable time) keep the loader's order.
        return measured.sorted { lhs, rhs in
            let l = lhs.1.initializersStart?.medianMs ?? .infinity
            let r = rhs.1.initializersStart?.medianMs ?? .infinity
            if l != r { return l < r }
            if l != .infinity { return lhs.0 < rhs.0 }
            let lm = lhs.1.mapped?.medianMs ?? .infinity
            let rm = rhs.1.mapped?.medianMs ?? .infinity
            if lm != rm { return lm < rm }
            return lhs.0 < rhs.0
        }.map(\.1)
    }
}
