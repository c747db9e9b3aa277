import PremainModel

/// Finds what made a compared quantity change: per object from the loader's lines of the timed
/// launches (initializers; loading of an object one build lacks), per function from both builds
/// traced alternately, each paired across the builds by identity (the object's role — the
/// executable, or a library's file name — plus the symbol), never by path. Ranks the causes by
/// their share of the change and says how much they explain; what they do not explain is left
/// unexplained, never spread over them. Pure: tests feed it scripted blocks and recorded traces.
public struct CauseFinder: Sendable {
    public var settings: CompareSettings
    /// A cause must move at least this many ms …
    public var minimumMs = 0.02
    /// … and at least this fraction of the change.
    public var minimumShare = 0.01
    /// Causes listed at most (the explained total counts them all).
    public var limit = 10

    public init(settings: CompareSettings) {
        self.settings = settings
    }

    /// The quantity a verdict rests on (`CompareReport.decidingTime`); `nil` for no change and
    /// inconclusive, which claim no cause.
    public static func decidedQuantity(_ report: CompareReport) -> TimeComparison? {
        report.verdict == .regression || report.verdict == .improvement ? report.decidingTime : nil
    }

    /// The causes of `quantity`'s change (`changeMs`, head − base) and how much they explain.
    /// `traced` adds per-function causes; `instructions` adds exact instruction deltas to the
    /// causes they match. `notes` are carried into the explanation.
    public func explain(
        quantity: TimeComparison.Quantity, changeMs: Double, blocks: [PairedBlock],
        traced: TracedPair?, instructions: InstructionComparison?, base: String, head: String,
        notes: [String] = []
    ) -> (causes: [StartupCause], explanation: StartupExplanation) {
        var candidates = functionCauses(traced, quantity: quantity)
        let tracedInitializerObjects = Set(candidates.filter { $0.kind.runsBeforeMain }.map(\.object))
        for cause in objectCauses(blocks, quantity: quantity, base: base, head: head)
        where !(cause.kind == .objectInitializers && tracedInitializerObjects.contains(cause.object)) {
            candidates.append(cause)
        }
        let sign: Double = changeMs < 0 ? -1 : 1
        let floor = max(minimumMs, abs(changeMs) * minimumShare)
        var causes = candidates.filter { cause in
            let estimate = cause.difference.medianMs * sign
            let excludesZero = sign > 0 ? cause.difference.lowMs > 0 : cause.difference.highMs < 0
            return estimate >= floor && excludesZero
        }
        for index in causes.indices {
            causes[index].share = changeMs == 0 ? 0 : causes[index].difference.medianMs / changeMs
            causes[index].instructionChange = instructionChange(of: causes[index], instructions)
        }
        causes.sort { ($0.difference.medianMs * sign, $1.title) > ($1.difference.medianMs * sign, $0.title) }
        let explained = causes.reduce(0.0) { $0 + $1.difference.medianMs }
        var allNotes = notes
        if let traced {
            allNotes += traced.notes
            let pairs = min(traced.base.filter(\.succeeded).count, traced.head.filter(\.succeeded).count)
            if pairs > 0, pairs < Self.pairsForLevel(settings.confidence) {
                allNotes.append(
                    "\(pairs) traced pair\(pairs == 1 ? "" : "s"): function intervals are at a lower confidence than \(Int((settings.confidence * 100).rounded())) %; raise --explain-runs"
                )
            }
        }
        let explanation = StartupExplanation(
            quantity: quantity, changeMs: changeMs, explainedMs: explained,
            tracedRunsPerSide: traced.map { min($0.base.count, $0.head.count) } ?? 0,
            tracedSeconds: traced?.seconds ?? 0, notes: allNotes)
        return (Array(causes.prefix(limit)), explanation)
    }

    /// Pairs needed for an interval at `level` (2^−n ≤ (1 − level) / 2).
    public static func pairsForLevel(_ level: Double) -> Int {
        var n = 1
        while n < 64, Double(1) / Double(UInt64(1) << UInt64(n)) > (1 - level) / 2 { n += 1 }
        return n
    }

    /// The paired interval of `differences` at the settings' level, or at the highest level so
    /// few pairs allow (the range of the differences); `nil` for no pair.
    func interval(_ differences: [Double]) -> TimeDifference? {
        if let interval = PairedInterval.of(differences, level: settings.confidence) { return TimeDifference(interval) }
        guard differences.count >= 2 else {
            guard let only = differences.first else { return nil }
            return TimeDifference(PairedInterval(estimate: only, low: only, high: only, level: 0, count: 1))
        }
        let level = 1 - 2 * Double(1) / Double(UInt64(1) << UInt64(min(differences.count, 62)))
        return PairedInterval.of(differences, level: level).map(TimeDifference.init)
    }

    // MARK: functions

    /// The object role of `object` in a run of `executable`: `<executable>` for the program
    /// (by path, or by file name: a symlinked build folder maps it under its real path), else
    /// the object's file name.
    public static func role(_ object: String, executable: String) -> String {
        StartupCause.role(of: object, executable: executable)
    }

    struct FunctionIdentity: Hashable {
        var role: String
        var symbol: String
        var inlinedInto: String?
    }

    /// Per traced function present in any pair: the paired exclusive-time differences.
    func functionCauses(_ traced: TracedPair?, quantity: TimeComparison.Quantity) -> [StartupCause] {
        guard let traced else { return [] }
        let pairs = zip(traced.base, traced.head).filter { $0.0.succeeded && $0.1.succeeded }
        guard !pairs.isEmpty else { return [] }
        func totals(_ run: TracedRun) -> [FunctionIdentity: (
            exclusive: Double, inclusive: Double, function: TracedRun.Function
        )] {
            var totals: [FunctionIdentity: (exclusive: Double, inclusive: Double, function: TracedRun.Function)] = [:]
            for function in run.functions {
                let identity = FunctionIdentity(
                    role: Self.role(function.object, executable: run.executable),
                    symbol: function.symbol, inlinedInto: function.inlinedInto)
                let earlier = totals[identity]
                totals[identity] = (
                    (earlier?.exclusive ?? 0) + function.exclusiveMs, (earlier?.inclusive ?? 0) + function.inclusiveMs,
                    earlier?.function ?? function
                )
            }
            return totals
        }
        let baseTotals = pairs.map { totals($0.0) }
        let headTotals = pairs.map { totals($0.1) }
        var identities: [FunctionIdentity] = []
        var seen = Set<FunctionIdentity>()
        for table in baseTotals + headTotals {
            for identity in table.keys.sorted(by: { ($0.role, $0.symbol) < ($1.role, $1.symbol) })
            where seen.insert(identity).inserted {
                identities.append(identity)
            }
        }
        var causes: [StartupCause] = []
        for identity in identities {
            let inBase = baseTotals.compactMap { $0[identity] }
            let inHead = headTotals.compactMap { $0[identity] }
            guard let sample = inHead.first?.function ?? inBase.first?.function else { continue }
            let kind = StartupCause.Kind(sample.kind)
            if !kind.runsBeforeMain && (quantity == .milestone(.main) || quantity == .milestone(.loaderDone)) {
                continue
            }
            let differences = zip(baseTotals, headTotals).map {
                ($1[identity]?.exclusive ?? 0) - ($0[identity]?.exclusive ?? 0)
            }
            guard let difference = interval(differences) else { continue }
            let change: StartupCause.Change =
                inBase.isEmpty
                ? .new
                : inHead.isEmpty
                    ? .removed
                    : difference.medianMs >= 0 ? .grown : .shrunk
            let headSample = inHead.first?.function
            let path = headSample?.object ?? inBase.first?.function.object
            causes.append(
                StartupCause(
                    kind: kind, change: change, object: identity.role, objectPath: path,
                    function: SwiftName.display(symbol: sample.symbol, demangled: sample.demangled),
                    symbol: sample.symbol, inlinedInto: sample.inlinedInto, source: (headSample ?? sample).source,
                    base: TimeSummary(samplesMs: inBase.map(\.inclusive)),
                    head: TimeSummary(samplesMs: inHead.map(\.inclusive)),
                    difference: difference, share: 0, evidence: .traced))
        }
        return causes
    }

    // MARK: objects

    struct ObjectTimes {
        var initializers: [String: Double] = [:]
        var mapping: [String: Double] = [:]
        var paths: [String: String] = [:]
    }

    /// One launch's per-object initializer and loading times, by object role.
    static func objectTimes(_ sample: LaunchSample, executable: String) -> ObjectTimes? {
        guard sample.outcome.succeeded, let loader = sample.loader else { return nil }
        var times = ObjectTimes()
        for call in loader.initializers {
            let role = call.isProgram ? StartupCause.executableRole : role(call.path, executable: executable)
            times.initializers[role, default: 0] += call.durationMs ?? 0
            times.paths[role] = call.path
        }
        var previous = loader.loaderStartMs
        for object in loader.objects {
            guard let mapped = object.mappedMs else { continue }
            let role = Self.role(object.name, executable: executable)
            times.mapping[role, default: 0] += max(0, mapped - previous)
            if times.paths[role] == nil { times.paths[role] = object.name }
            previous = mapped
        }
        return times
    }

    /// Initializer time per object (not for `loaderDone`: they run after it), and loading of
    /// objects that only one build maps.
    func objectCauses(_ blocks: [PairedBlock], quantity: TimeComparison.Quantity, base: String, head: String)
        -> [StartupCause]
    {
        var pairs: [(ObjectTimes, ObjectTimes)] = []
        for block in blocks {
            for (before, after) in zip(block.base, block.head) {
                guard let b = Self.objectTimes(before, executable: base),
                    let h = Self.objectTimes(after, executable: head)
                else { continue }
                pairs.append((b, h))
            }
        }
        guard !pairs.isEmpty else { return [] }
        var causes: [StartupCause] = []
        func add(kind: StartupCause.Kind, _ pick: (ObjectTimes) -> [String: Double], onlyNewOrRemoved: Bool) {
            var roles: [String] = []
            var seen = Set<String>()
            for (b, h) in pairs {
                for role in (pick(b).keys.sorted() + pick(h).keys.sorted()) where seen.insert(role).inserted {
                    roles.append(role)
                }
            }
            for role in roles {
                let inBase = pairs.compactMap { pick($0.0)[role] }
                let inHead = pairs.compactMap { pick($0.1)[role] }
                let change: StartupCause.Change?
                if inBase.isEmpty { change = .new } else if inHead.isEmpty { change = .removed } else { change = nil }
                if onlyNewOrRemoved && change == nil { continue }
                let differences = pairs.map { (pick($0.1)[role] ?? 0) - (pick($0.0)[role] ?? 0) }
                guard let difference = interval(differences) else { continue }
                let path = pairs.lazy.compactMap { $0.1.paths[role] ?? $0.0.paths[role] }.first
                causes.append(
                    StartupCause(
                        kind: kind, change: change ?? (difference.medianMs >= 0 ? .grown : .shrunk), object: role,
                        objectPath: path, base: TimeSummary(samplesMs: inBase), head: TimeSummary(samplesMs: inHead),
                        difference: difference, share: 0, evidence: .loader))
            }
        }
        if quantity != .milestone(.loaderDone) {
            add(kind: .objectInitializers, \.initializers, onlyNewOrRemoved: false)
        }
        add(kind: .objectMapping, \.mapping, onlyNewOrRemoved: true)
        return causes
    }

    // MARK: instructions

    /// The exact instruction change of the function or object `cause` names, when counted.
    func instructionChange(of cause: StartupCause, _ instructions: InstructionComparison?) -> Int64? {
        guard let instructions, let function = cause.function else { return nil }
        return instructions.functions.first { row in
            row.object == cause.object && (row.symbol == cause.symbol || row.name == function)
        }?.change
    }
}
