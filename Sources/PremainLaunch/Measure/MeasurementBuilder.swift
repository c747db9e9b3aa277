import PremainModel

/// Turns the samples of a series into a `LaunchMeasurement`: statistics per milestone and object,
/// failures, observer effect, warnings. Pure: no launching, no clock.
public struct MeasurementBuilder: Sendable {
    public var advisor = WarningAdvisor()

    public init() {}

    /// `samples` are the counted instrumented runs in order; `plain` the uninstrumented ones
    /// (`[]` when there was no such series); `residency` one eviction report per cold run.
    public func build(
        command: [String], executablePath: String, warmup: Int, cold: Bool,
        conditions: LaunchConditions, loaderPhasesMissing: String?,
        samples: [LaunchSample], plain: [LaunchSample],
        residency: [[PageCacheEvictor.Residency]]
    ) -> LaunchMeasurement {
        let loaderRuns = samples.map(\.loader)
        func summary(_ pick: (LaunchSample) -> Double?) -> TimeSummary? {
            TimeSummary(samplesMs: samples.compactMap(pick))
        }
        var milestones = Self.loaderMilestones(loaderRuns)
        milestones[.firstOutput] = summary(\.firstOutputMs)
        milestones[.exit] = summary(\.exitMs)
        milestones[.ready] = summary(\.readyMs)
        let cpuTime = summary(\.cpuMs)

        var missing = loaderPhasesMissing
        if missing == nil, !samples.isEmpty, loaderRuns.allSatisfy({ $0 == nil }) {
            missing =
                samples.contains { $0.outcome.kind == .unmeasurable }
                ? "the program wrote to or closed the loader's channel, so no loader line could be trusted"
                : "the loader printed no LD_DEBUG lines (setuid binary, or a loader that ignores LD_DEBUG_OUTPUT)"
        }

        let objects = ObjectAggregator(executablePath: executablePath).aggregate(loaderRuns)
        let medianRun = Self.medianRunIndex(samples)
        var warnings: [MeasurementWarning] = []
        if let runWarning = advisor.runCountWarning(runs: samples.count) { warnings.append(runWarning) }
        for milestone in [Milestone.main, .firstOutput, .exit] {
            if let value = milestones[milestone] {
                warnings += advisor.warnings(for: value, subject: milestone.rawValue)
            }
        }
        for object in objects {
            if let value = object.initializers, value.medianMs >= 0.5 {
                warnings += advisor.warnings(for: value, subject: object.path).filter { $0.kind != .outliers }
            }
        }
        let lateObjects = LateLoadAggregator.aggregate(loaderRuns.map { $0?.loadedAfterMain })
        let images = Self.execImages(samples)
        let children = samples.compactMap(\.childProcessesWithLoaderOutput).max()
        let throughPipe = samples.contains { $0.outputThroughPipe == true }
        let failures = Self.failures(samples.map(\.outcome))
        let residencySummary = cold ? Self.residency(residency) : nil
        warnings += seriesWarnings(
            samples, executablePath: executablePath, medianRun: medianRun, images: images, children: children,
            failures: failures, conditions: conditions, residency: residencySummary)

        let (plainSeries, effect, effectWarning) = observerEffect(plain, milestones: milestones, cpuTime: cpuTime)
        if let effectWarning { warnings.append(effectWarning) }
        if throughPipe, plain.isEmpty || plain.contains(where: { $0.outputThroughPipe == true }) {
            warnings.append(
                MeasurementWarning(
                    kind: .outputThroughPipe, subject: "series",
                    message:
                        "stdout went through a pipe (--show-output, --ready, or no private null device could be made)",
                    advice:
                        "a program that writes a lot pays for the pipe; without those options and as root, output costs what /dev/null costs"
                ))
        }
        let counts = Self.counts(loaderRuns, median: medianRun.flatMap { samples[$0].loader })

        var measurement = LaunchMeasurement(
            command: command, runs: samples.count, warmup: warmup, cold: cold, conditions: conditions,
            status: failures.isEmpty ? .ok : .failed, failures: failures, outcomes: samples.map(\.outcome),
            milestones: milestones, targetCPUTime: cpuTime, objects: objects, loaderCounts: counts,
            loaderPhasesMissing: missing,
            uninstrumented: plainSeries, observerEffect: effect, coldResidency: residencySummary,
            warnings: warnings, medianRun: medianRun, medianRunTimeline: medianRun.flatMap { samples[$0].loader },
            rawSamples: nil)
        measurement.loadedAfterMain = lateObjects
        measurement.breakdown = BreakdownBuilder(aggregator: ObjectAggregator(executablePath: executablePath)).build(
            samples)
        measurement.execImages = images
        measurement.childProcessesWithLoaderOutput = children
        if samples.contains(where: { $0.outputThroughPipe != nil }) {
            measurement.outputCapture = throughPipe ? "pipe" : "null device"
        }
        return measurement
    }

    /// The uninstrumented series (`nil` without one), the observer effect against it, and the
    /// warning when LD_DEBUG slowed the program beyond the advisor's budget.
    func observerEffect(_ plain: [LaunchSample], milestones: Milestones, cpuTime: TimeSummary?) -> (
        UninstrumentedSeries?, ObserverEffect?, MeasurementWarning?
    ) {
        var warning: MeasurementWarning?
        let plainSeries: UninstrumentedSeries? =
            plain.isEmpty
            ? nil
            : UninstrumentedSeries(
                runs: plain.count, firstOutput: TimeSummary(samplesMs: plain.compactMap(\.firstOutputMs)),
                exit: TimeSummary(samplesMs: plain.compactMap(\.exitMs)),
                cpu: TimeSummary(samplesMs: plain.compactMap(\.cpuMs)),
                outcomes: plain.map(\.outcome))
        let effect = plainSeries.map { series in
            ObserverEffect(
                firstOutputRatio: Self.ratio(milestones[.firstOutput], series.firstOutput),
                exitRatio: Self.ratio(milestones[.exit], series.exit),
                cpuRatio: Self.ratio(cpuTime, series.cpu))
        }
        if let effect, let budget = advisor.observerEffectBudget,
            let worst = [effect.exitRatio, effect.firstOutputRatio].compactMap({ $0 }).max(), worst > 1 + budget
        {
            warning =
                MeasurementWarning(
                    kind: .observerEffect, subject: "series",
                    message:
                        "LD_DEBUG slowed the program ×\(Milliseconds.number(worst, decimals: 2)) (budget ×\(Milliseconds.number(1 + budget, decimals: 2)))",
                    advice:
                        "read the uninstrumented exit and first output for totals; the loader phases still rank the costs"
                )
        }
        return (plainSeries, effect, warning)
    }

    /// The series' own warnings: an exec chain, children that also wrote loader lines, loader
    /// lines without the pid prefix, a closed loader channel, failed runs, no pinning, and pages
    /// a cold run could not evict.
    func seriesWarnings(
        _ samples: [LaunchSample], executablePath: String, medianRun: Int?, images: [ImageMeasurement]?, children: Int?,
        failures: [String], conditions: LaunchConditions, residency: [ResidencySummary]?
    ) -> [MeasurementWarning] {
        var warnings: [MeasurementWarning] = []
        if let images {
            let names = images.map { $0.program.map(ObjectName.fileName) ?? "?" }.joined(separator: " → ")
            let first =
                medianRun.flatMap { samples[$0].loader?.program }.map(ObjectName.fileName)
                ?? ObjectName.fileName(executablePath)
            warnings.append(
                MeasurementWarning(
                    kind: .execChain, subject: "series",
                    message: "the process exec'd: \(first) → \(names); the milestones before main are \(first)'s",
                    advice: "each exec'd image is listed on its own; measure the last program directly to time it alone"
                ))
        }
        if let children {
            warnings.append(
                MeasurementWarning(
                    kind: .childProcesses, subject: "series",
                    message:
                        "up to \(children) child process\(children == 1 ? "" : "es") per run also ran with LD_DEBUG; their loader lines are not part of these figures",
                    advice: "measure a child's program directly to see its start-up"))
        }
        let continued = samples.compactMap { $0.loader?.continuedLines }.max()
        if let continued {
            warnings.append(
                MeasurementWarning(
                    kind: .oddLoaderPaths, subject: "series",
                    message:
                        "up to \(continued) loader line\(continued == 1 ? "" : "s") per run lacked the process's pid prefix: a path held a newline; they were kept in that path, not read as loader lines",
                    advice:
                        "rename the directory or library whose path holds a newline; a path can forge LD_DEBUG lines"))
        }
        let closed = samples.filter { $0.loaderChannelClosedMs != nil }.count
        if closed > 0 {
            warnings.append(
                MeasurementWarning(
                    kind: .loaderChannelClosed, subject: "series",
                    message:
                        "in \(closed) of \(samples.count) runs the program closed the loader's channel after main: main is the loader's only if no constructor of the program wrote that line",
                    advice:
                        "a program that closes every descriptor early (closefrom) cannot be checked later; trace --until main stops at main by breakpoint"
                ))
        }
        if !failures.isEmpty {
            warnings.append(
                MeasurementWarning(
                    kind: .failedRuns, subject: "series", message: failures.joined(separator: "; "),
                    advice:
                        "times include only the milestones each run reached; fix the failure before trusting the figures"
                ))
        }
        if !conditions.pinning.pinned {
            warnings.append(
                MeasurementWarning(
                    kind: .unpinned, subject: "series",
                    message:
                        "measurer and target were not pinned to different CPUs (\(conditions.pinning.reason ?? "no reason"))",
                    advice: "loader lines may be stamped late; measure on a machine with two or more CPUs"))
        }
        if let stayed = residency?.filter({ $0.residentPagesMedian > 0 }), !stayed.isEmpty {
            let names = stayed.map { ObjectName.fileName($0.path) }.joined(separator: ", ")
            warnings.append(
                MeasurementWarning(
                    kind: .pagesStayedResident, subject: "series",
                    message: "pages stayed in the page cache after eviction: \(names)",
                    advice:
                        "files mapped by running processes (libc, the loader) cannot be evicted; those reads stay warm")
            )
        }
        return warnings
    }

    /// The loader's milestones of one image over the runs (`nil` entries: runs without it).
    static func loaderMilestones(_ runs: [LoaderTimeline?]) -> Milestones {
        func summary(_ pick: (LoaderTimeline) -> Double?) -> TimeSummary? {
            TimeSummary(samplesMs: runs.compactMap { $0.flatMap(pick) })
        }
        return Milestones([
            .loaderStart: summary(\.loaderStartMs), .loaderDone: summary(\.loaderDoneMs),
            .programInitializers: summary { $0.initializers.first(where: \.isProgram)?.startMs },
            .main: summary(\.mainMs),
        ])
    }

    /// Counts of the median run (else the first run that has them) and every run's.
    static func counts(_ runs: [LoaderTimeline?], median: LoaderTimeline?) -> LoaderCountSummary? {
        guard runs.contains(where: { $0?.startupCounts != nil || $0?.finalCounts != nil }) else { return nil }
        return LoaderCountSummary(
            startup: median?.startupCounts ?? runs.compactMap { $0?.startupCounts }.first,
            final: median?.finalCounts ?? runs.compactMap { $0?.finalCounts }.first,
            startupPerRun: runs.map { $0?.startupCounts }, finalPerRun: runs.map { $0?.finalCounts })
    }

    /// One `ImageMeasurement` per position in the exec chain, over the runs that reached it.
    static func execImages(_ samples: [LaunchSample]) -> [ImageMeasurement]? {
        let depth = samples.map { $0.laterImages?.count ?? 0 }.max() ?? 0
        guard depth > 0 else { return nil }
        return (0..<depth).map { position in
            let runs: [LoaderTimeline?] = samples.map { sample in
                guard let images = sample.laterImages, position < images.count else { return nil }
                return images[position]
            }
            let reached = runs.compactMap { $0 }
            let program = Self.mostCommon(reached.compactMap(\.program))
            let objects = ObjectAggregator(executablePath: program ?? "?").aggregate(runs)
            return ImageMeasurement(
                program: program, position: position + 2, runs: reached.count,
                milestones: loaderMilestones(runs), objects: objects,
                loaderCounts: counts(runs, median: nil),
                loadedAfterMain: LateLoadAggregator.aggregate(runs.map { $0?.loadedAfterMain }))
        }
    }

    static func mostCommon(_ names: [String]) -> String? {
        var counts: [String: Int] = [:]
        for name in names { counts[name, default: 0] += 1 }
        return names.first { counts[$0] == counts.values.max() }
    }

    /// "N of M runs: message" per distinct failure message, most frequent first. A failure is
    /// what `isFailure` says (by default: not a success, or processes left behind).
    static func failures(
        _ outcomes: [LaunchOutcome],
        isFailure: (LaunchOutcome) -> Bool = { !$0.succeeded || $0.processesLeftBehind }
    ) -> [String] {
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
        return candidates.min {
            abs((key(samples[$0]) ?? .infinity) - median) < abs((key(samples[$1]) ?? .infinity) - median)
        }
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
            return ResidencySummary(
                path: path, pages: last.pages,
                residentPagesMedian: SampleStatistics.median(resident) ?? 0,
                residentPagesMax: records.map(\.residentPages).max() ?? 0,
                error: records.compactMap(\.error).first)
        }
    }
}

/// Gathers the objects loaded after main over runs into `LateObjectMeasurement`s, keyed by
/// path (the `calling init` path, else the printed name), in order of their load's start.
enum LateLoadAggregator {
    static func aggregate(_ runs: [[LoaderTimeline.LateLoad]?]) -> [LateObjectMeasurement]? {
        struct Gathered {
            var requestedBy: String?
            var runs = 0
            var starts: [Double] = []
            var loads: [Double] = []
            var initializers: [Double] = []
            var unfinished = 0
        }
        var order: [String] = []
        var gathered: [String: Gathered] = [:]
        for case let loads? in runs {
            var seen: Set<String> = []
            for load in loads {
                let requestedName = ObjectName.fileName(load.name)
                let requestedKey =
                    load.initializers.first { ObjectName.fileName($0.path) == requestedName }?.path ?? load.name
                var keys: [String] = [requestedKey]
                for call in load.initializers where !keys.contains(call.path) { keys.append(call.path) }
                for key in keys {
                    if gathered[key] == nil {
                        order.append(key)
                        gathered[key] = Gathered()
                    }
                    var entry = gathered[key]!
                    if !seen.contains(key) {
                        entry.runs += 1
                        seen.insert(key)
                    }
                    entry.starts.append(load.startMs)
                    if key == requestedKey {
                        entry.requestedBy = entry.requestedBy ?? load.requester
                        let loaded = load.initializers.first?.startMs ?? load.endMs
                        if let loaded { entry.loads.append(loaded - load.startMs) }
                    }
                    let calls = load.initializers.filter { $0.path == key }
                    if !calls.isEmpty {
                        if calls.contains(where: { $0.durationMs == nil }) {
                            entry.unfinished += 1
                        } else {
                            entry.initializers.append(calls.compactMap(\.durationMs).reduce(0, +))
                        }
                    }
                    gathered[key] = entry
                }
            }
        }
        let objects = order.compactMap { key -> LateObjectMeasurement? in
            guard let entry = gathered[key], let start = TimeSummary(samplesMs: entry.starts) else { return nil }
            return LateObjectMeasurement(
                path: key, requestedBy: entry.requestedBy, runs: entry.runs, loadStart: start,
                load: TimeSummary(samplesMs: entry.loads),
                initializers: TimeSummary(samplesMs: entry.initializers),
                unfinished: entry.unfinished)
        }
        return objects.isEmpty ? nil : objects
    }
}

/// Gathers each object's loader events over runs into `ObjectMeasurement`s.
///
/// Objects are keyed by path. `file=NAME` lines name a DT_NEEDED string, not a path, so a
/// mapped object takes the path of the `calling init` or `relocation processing` line with the
/// same file name when there is one; otherwise it keeps the name as printed. The executable's
/// relocation pass names argv[0] (the program as the loader names it).
struct ObjectAggregator {
    let executablePath: String

    /// One run's per-object facts, keyed as the measurement's objects are.
    struct RunObjects {
        var order: [String] = []
        var roles: [String: ObjectMeasurement.Role] = [:]
        var mapping: [String: Double] = [:]
        var mapped: [String: Double] = [:]
        var relocation: [String: Double] = [:]
        var relocationStart: [String: Double] = [:]
        var lazy: [String: Bool] = [:]
        var initializerStart: [String: Double] = [:]
        var initializers: [String: Double] = [:]

        mutating func note(_ key: String, _ role: ObjectMeasurement.Role) {
            if roles[key] == nil {
                order.append(key)
                roles[key] = role
            }
        }
    }

    /// The objects of one timeline, keyed by path.
    func objects(of timeline: LoaderTimeline) -> RunObjects {
        var run = RunObjects()
        var pathByName: [String: String] = [:]
        for call in timeline.initializers where !call.isProgram {
            pathByName[ObjectName.fileName(call.path)] = call.path
        }
        let passes = timeline.relocations ?? []
        let executablePass =
            passes.lastIndex { $0.path == timeline.program }
            ?? passes.lastIndex { !ObjectName.isDynamicLoader($0.path) }
        for (index, pass) in passes.enumerated() where index != executablePass {
            if pathByName[ObjectName.fileName(pass.path)] == nil {
                pathByName[ObjectName.fileName(pass.path)] = pass.path
            }
        }
        for call in timeline.initializers {
            let key = call.isProgram ? executablePath : call.path
            let role: ObjectMeasurement.Role =
                call.isProgram
                ? .executable
                : (ObjectName.isDynamicLoader(call.path) ? .loader : .library)
            run.note(key, role)
            if run.initializerStart[key] == nil { run.initializerStart[key] = call.startMs }
            if let duration = call.durationMs { run.initializers[key, default: 0] += duration }
        }
        for object in timeline.objects {
            guard let at = object.mappedMs else { continue }
            let key = object.name.contains("/") ? object.name : (pathByName[object.name] ?? object.name)
            run.note(key, .library)
            run.mapped[key] = at
            if let mapping = object.mappingMs { run.mapping[key, default: 0] += mapping }
        }
        for (index, pass) in passes.enumerated() {
            let isExecutable = index == executablePass
            let key = isExecutable ? executablePath : pass.path
            run.note(key, isExecutable ? .executable : (ObjectName.isDynamicLoader(pass.path) ? .loader : .library))
            if let duration = pass.durationMs { run.relocation[key, default: 0] += duration }
            if run.relocationStart[key] == nil { run.relocationStart[key] = pass.startMs }
            run.lazy[key] = pass.lazy
        }
        return run
    }

    func aggregate(_ runs: [LoaderTimeline?]) -> [ObjectMeasurement] {
        var order: [String] = []
        var roles: [String: ObjectMeasurement.Role] = [:]
        var mapped: [String: [Double]] = [:]
        var mappings: [String: [Double]] = [:]
        var relocations: [String: [Double]] = [:]
        var relocationStarts: [String: [Double]] = [:]
        var lazy: [String: Bool] = [:]
        var starts: [String: [Double]] = [:]
        var durations: [String: [Double]] = [:]
        for case let timeline? in runs {
            let run = objects(of: timeline)
            for key in run.order where roles[key] == nil {
                order.append(key)
                roles[key] = run.roles[key]
            }
            // A library first seen as mapped only, then with initializers, keeps its first role.
            for (key, value) in run.mapped { mapped[key, default: []].append(value) }
            for (key, value) in run.mapping { mappings[key, default: []].append(value) }
            for (key, value) in run.relocation { relocations[key, default: []].append(value) }
            for (key, value) in run.relocationStart { relocationStarts[key, default: []].append(value) }
            for (key, value) in run.lazy { lazy[key] = value }
            for (key, value) in run.initializerStart { starts[key, default: []].append(value) }
            for (key, value) in run.initializers { durations[key, default: []].append(value) }
        }
        let measured = order.enumerated().map { index, key in
            let role = roles[key] ?? .library
            var object = ObjectMeasurement(
                path: key, role: role,
                mapped: mapped[key].flatMap { TimeSummary(samplesMs: $0) },
                initializersStart: starts[key].flatMap { TimeSummary(samplesMs: $0) },
                initializers: durations[key].flatMap { TimeSummary(samplesMs: $0) },
                mapping: mappings[key].flatMap { TimeSummary(samplesMs: $0) },
                relocation: relocations[key].flatMap { TimeSummary(samplesMs: $0) },
                lazyBinding: lazy[key], group: ObjectGroup.of(path: key, role: role))
            object.relocationStart = relocationStarts[key].flatMap { TimeSummary(samplesMs: $0) }
            return (index, object)
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
