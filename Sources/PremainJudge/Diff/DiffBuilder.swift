import PremainAudit
import PremainModel

/// Builds a `DiffReport` from the rule inputs of two builds. Pure: no files, no clock.
public struct DiffBuilder: Sendable {
    /// The rules and budgets to find with, and the diff's settings (`config.diff`).
    public var config: PremainConfig

    /// `failOn`, when given, replaces `config.diff.failOn`.
    public init(config: PremainConfig = .init(), failOn: Severity? = nil) {
        self.config = config
        if let failOn { self.config.diff.failOn = failOn }
    }

    /// Why `base` and `head` cannot be compared: each holds facts of a kind the other lacks
    /// entirely (a measure report against an audit); `nil` when they share a kind or one is
    /// empty.
    public static func mismatch(base: RuleInput, head: RuleInput) -> String? {
        let baseKinds = base.contentKinds
        let headKinds = head.contentKinds
        guard !baseKinds.isEmpty, !headKinds.isEmpty, baseKinds.isDisjoint(with: headKinds) else { return nil }
        func names(_ kinds: Set<RuleInput.ContentKind>) -> String {
            kinds.sorted { $0.rawValue < $1.rawValue }.map(\.rawValue).joined(separator: " and ")
        }
        return "base holds \(names(baseKinds)) and head \(names(headKinds)): nothing to compare; "
            + "give two builds, two audits, two measure reports or two trace reports"
    }

    public func diff(base: RuleInput, head: RuleInput, baseLabel: String, headLabel: String) -> DiffReport {
        let engine = RuleEngine(config: config)
        let findings = FindingsDelta(base: engine.findings(base), head: engine.findings(head))
        let objects = objectDeltas(base.objects, head.objects) + closureLibraryDeltas(base, head)
        let closures = closureDeltas(base.closures, head.closures)
        let measured = measuredDeltas(base, head)
        let backing = deterministicBacking(objects: objects, base: base, head: head)
        let verdict = verdictFor(findings: findings, measured: measured, backing: backing)
        return DiffReport(
            verdict: verdict, base: side(base, baseLabel), head: side(head, headLabel), objects: objects,
            closures: closures, measured: measured, findings: findings, warnings: warnings(base, head),
            settings: config.diff)
    }

    // MARK: static

    func objectDeltas(_ base: [BinaryInventory], _ head: [BinaryInventory]) -> [ObjectDelta] {
        let baseByName = Self.byName(base)
        let headByName = Self.byName(head)
        var names = head.map(ObjectName.of)
        for name in base.map(ObjectName.of) where headByName[name] == nil { names.append(name) }
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }.map { name in
            Self.delta(name, baseByName[name], headByName[name])
        }
    }

    static func byName(_ binaries: [BinaryInventory]) -> [String: BinaryInventory] {
        Dictionary(binaries.map { (ObjectName.of($0), $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func delta(_ name: String, _ base: BinaryInventory?, _ head: BinaryInventory?) -> ObjectDelta {
        func count(_ key: String, _ value: (BinaryInventory) -> Int) -> CountDelta {
            CountDelta(name: key, base: base.map(value), head: head.map(value))
        }
        func names(_ binary: BinaryInventory?) -> [String] {
            binary?.initializers.entries.filter { !$0.toolchain }.map {
                $0.name ?? $0.demangled ?? $0.symbol ?? $0.address ?? "?"
            }
                ?? []
        }
        func suspects(_ binary: BinaryInventory?) -> [String] {
            guard let swift = binary?.swift else { return [] }
            return (swift.lazyGlobals + swift.defaultArguments).map {
                SwiftName.display(symbol: $0.symbol, demangled: $0.demangled)
            }
        }
        let baseInitializers = names(base)
        let headInitializers = names(head)
        let baseSuspects = suspects(base)
        let headSuspects = suspects(head)
        let baseNeeded = base?.needed ?? []
        let headNeeded = head?.needed ?? []
        let relocations = [
            count("relative") { $0.relocations.relative }, count("relr") { $0.relocations.relrAddresses },
            count("symbolic") { $0.relocations.symbolic }, count("plt") { $0.relocations.plt },
            count("copy") { $0.relocations.copy }, count("irelative") { $0.relocations.irelative },
            count("tls") { $0.relocations.tls }, count("total") { $0.relocations.total },
        ]
        var delta = ObjectDelta(
            name: name, status: .unchanged,
            neededAdded: headNeeded.filter { !baseNeeded.contains($0) },
            neededRemoved: baseNeeded.filter { !headNeeded.contains($0) },
            relocations: relocations,
            exports: count("exports") { $0.symbols.exported }, imports: count("imports") { $0.symbols.imported },
            initializers: count("initializers") { $0.initializers.own },
            initializersAdded: headInitializers.filter { !baseInitializers.contains($0) },
            initializersRemoved: baseInitializers.filter { !headInitializers.contains($0) },
            swiftSuspectsAdded: headSuspects.filter { !baseSuspects.contains($0) },
            swiftSuspectsRemoved: baseSuspects.filter { !headSuspects.contains($0) },
            fileSize: count("fileSize") { Int(clamping: $0.header.fileSize) })
        delta.kind = (head ?? base)?.header.kind
        delta.place = .project
        if base == nil {
            delta.status = .added
        } else if head == nil {
            delta.status = .removed
        } else if !delta.neededAdded.isEmpty || !delta.neededRemoved.isEmpty || !delta.initializersAdded.isEmpty
            || !delta.initializersRemoved.isEmpty || !delta.swiftSuspectsAdded.isEmpty
            || !delta.swiftSuspectsRemoved.isEmpty || relocations.contains(where: { $0.delta != 0 })
            || delta.exports.delta != 0 || delta.imports.delta != 0 || delta.initializers.delta != 0
            || delta.fileSize.delta != 0
        {
            delta.status = .changed
        }
        return delta
    }

    /// The libraries that programs' closures map and that were not audited themselves (system
    /// and toolchain libraries), added to or removed from the closures: only their names, the
    /// programs that map them, and where they are. Libraries in both builds are left out.
    func closureLibraryDeltas(_ base: RuleInput, _ head: RuleInput) -> [ObjectDelta] {
        let audited = Set((base.objects + head.objects).map(ObjectName.of))
        func libraries(_ input: RuleInput) -> [(name: String, system: Bool, program: String)] {
            input.closures.flatMap { program in
                program.closure.objects.map {
                    (name: $0.soname ?? ObjectName.fileName($0.path), system: $0.system, program: program.name)
                }
            }.filter { !audited.contains($0.name) }
        }
        let baseLibraries = libraries(base)
        let headLibraries = libraries(head)
        let baseNames = Set(baseLibraries.map(\.name))
        let headNames = Set(headLibraries.map(\.name))
        var deltas: [ObjectDelta] = []
        for (status, found, other) in [
            (ObjectDelta.Status.added, headLibraries, baseNames), (.removed, baseLibraries, headNames),
        ] {
            var seen: Set<String> = []
            for library in found where !other.contains(library.name) && seen.insert(library.name).inserted {
                let programs = found.filter { $0.name == library.name }.map(\.program)
                let none = { (name: String) in CountDelta(name: name, base: nil, head: nil) }
                deltas.append(
                    ObjectDelta(
                        name: library.name, status: status, place: library.system ? .system : .toolchain,
                        mappedBy: Array(Set(programs)).sorted(), exports: none("exports"), imports: none("imports"),
                        initializers: none("initializers"), fileSize: none("fileSize")))
            }
        }
        return deltas
    }

    func closureDeltas(_ base: [ProgramClosure], _ head: [ProgramClosure]) -> [CountDelta] {
        var names = head.map(\.name)
        for program in base where !names.contains(program.name) { names.append(program.name) }
        return names.map { name in
            CountDelta(
                name: name, base: base.first { $0.name == name }?.closure.objects.count,
                head: head.first { $0.name == name }?.closure.objects.count)
        }
    }

    // MARK: measured

    func measuredDeltas(_ base: RuleInput, _ head: RuleInput) -> [MeasuredDelta] {
        let detector = ChangeDetector(settings: config.diff)
        var deltas: [MeasuredDelta] = []
        var salt: UInt64 = 0
        func add(
            _ scope: MeasuredDelta.Scope, _ subject: String, _ object: String?, _ b: TimeSummary?, _ h: TimeSummary?
        ) {
            salt &+= 1
            deltas.append(
                MeasuredDelta(
                    scope: scope, subject: subject, object: object, base: b, head: h,
                    result: detector.compare(base: b, head: h, seedSalt: salt)))
        }
        let baseLaunch = base.launches.first
        let headLaunch = head.launches.first
        if baseLaunch != nil || headLaunch != nil {
            for milestone in Milestone.compared {
                let b = baseLaunch?.milestones[milestone]
                let h = headLaunch?.milestones[milestone]
                if b != nil || h != nil { add(.milestone, milestone.rawValue, nil, b, h) }
            }
            let baseObjects = Self.objectTimes(baseLaunch)
            let headObjects = Self.objectTimes(headLaunch)
            var names = headObjects.map(\.0)
            for (name, _) in baseObjects where !names.contains(name) { names.append(name) }
            for name in names {
                let b = baseObjects.first { $0.0 == name }?.1
                let h = headObjects.first { $0.0 == name }?.1
                if b != nil || h != nil { add(.object, name, nil, b, h) }
            }
        }
        func key(_ function: TracedFunction) -> String {
            ObjectName.fileName(function.object) + "\u{0}" + function.symbol
        }
        func byKey(_ functions: [TracedFunction]) -> [String: TracedFunction] {
            Dictionary(functions.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        }
        let baseFunctions = byKey(base.functions)
        let headFunctions = byKey(head.functions)
        var seen: Set<String> = []
        for function in head.functions + base.functions where seen.insert(key(function)).inserted {
            add(
                .function, function.displayName, ObjectName.fileName(function.object),
                baseFunctions[key(function)]?.inclusive,
                headFunctions[key(function)]?.inclusive)
        }
        return deltas
    }

    /// The milestones compared, in timeline order.

    static func objectTimes(_ launch: LaunchMeasurement?) -> [(String, TimeSummary?)] {
        (launch?.objects ?? []).map { (ObjectName.fileName($0.path), $0.initializers) }
    }

    // MARK: verdict and sides

    /// The measurement warnings of both sides, "base: "/"head: " before each message, then,
    /// when both sides were measured, the warning that unpaired series cannot tell drift from
    /// change.
    func warnings(_ base: RuleInput, _ head: RuleInput) -> [MeasurementWarning] {
        var found: [MeasurementWarning] = []
        for (name, input) in [("base", base), ("head", head)] {
            for launch in input.launches {
                for var warning in launch.warnings {
                    warning.message = "\(name): " + warning.message
                    found.append(warning)
                }
            }
        }
        if !base.launches.isEmpty && !head.launches.isEmpty {
            found.append(
                MeasurementWarning(
                    kind: .unpaired, subject: "series",
                    message:
                        "base and head were measured separately, so a drift of the machine between the two series looks like a change",
                    advice: "confirm a measured change with premain compare BASE HEAD, which interleaves the launches"))
        }
        return found
    }

    /// What deterministic facts back a measured regression of unpaired series: new
    /// dependencies, initializers or Swift suspects in head, more loader symbol look-ups, or
    /// CPU time that regressed too. Names for people; `[]` when nothing does.
    func deterministicBacking(objects: [ObjectDelta], base: RuleInput, head: RuleInput) -> [String] {
        var found: [String] = []
        let needed = objects.flatMap(\.neededAdded) + objects.filter { $0.status == .added }.map(\.name)
        if !needed.isEmpty { found.append("new dependencies (\(Set(needed).count))") }
        let initializers = objects.reduce(0) { $0 + $1.initializersAdded.count }
        if initializers > 0 { found.append("new static initializers (\(initializers))") }
        let suspects = objects.reduce(0) { $0 + $1.swiftSuspectsAdded.count }
        if suspects > 0 { found.append("new Swift start-up suspects (\(suspects))") }
        let baseLaunch = base.launches.first
        let headLaunch = head.launches.first
        if let before = baseLaunch?.loaderCounts?.startup?.symbolLookups,
            let after = headLaunch?.loaderCounts?.startup?.symbolLookups,
            after - before >= max(1, Int((Double(before) * config.diff.minEffectPercent / 100).rounded(.up)))
        {
            found.append("loader symbol look-ups +\(after - before)")
        }
        let cpu = ChangeDetector(settings: config.diff).compare(
            base: baseLaunch?.targetCPUTime, head: headLaunch?.targetCPUTime)
        if cpu.change == .regression, let delta = cpu.deltaMs { found.append("CPU time " + Milliseconds.signed(delta)) }
        return found
    }

    func verdictFor(findings: FindingsDelta, measured: [MeasuredDelta], backing: [String]) -> DiffReport.Verdict {
        var reasons: [String] = []
        // The first milestone that regressed (what users feel), then the objects and functions
        // that regressed, largest first (the cause), then the later milestones.
        let regressed = measured.filter { $0.result.change == .regression }
        let milestones = regressed.filter { $0.scope == .milestone }
        let causes = regressed.filter { $0.scope != .milestone }.sorted {
            ($0.result.deltaMs ?? 0) > ($1.result.deltaMs ?? 0)
        }
        let regressions = Array(milestones.prefix(1)) + causes + milestones.dropFirst()
        let confirmed = backing.isEmpty ? " in unpaired runs" : ""
        for delta in regressions.prefix(2) {
            let what = delta.displayName
            let change = delta.result.deltaMs.map { "+" + Milliseconds.text($0) } ?? ""
            let percent = delta.result.percent.map { String(format1: $0) } ?? ""
            reasons.append("\(what) regressed by \(change)\(percent.isEmpty ? "" : " (+\(percent) %)")\(confirmed)")
        }
        if regressions.count > 2 {
            let more = regressions.dropFirst(2)
            let names = more.prefix(3).map(\.displayName).joined(separator: ", ") + (more.count > 3 ? ", …" : "")
            reasons.append("\(more.count) more measured regression\(more.count == 1 ? "" : "s"): \(names)")
        }
        if !regressions.isEmpty {
            reasons.append(
                backing.isEmpty
                    ? "not confirmed: nothing deterministic backs it (no new dependency, initializer or Swift suspect, "
                        + "same loader look-ups, CPU time unchanged); separately measured runs cannot tell drift from change, "
                        + "so confirm with premain compare BASE HEAD"
                    : "backed by " + backing.joined(separator: ", "))
        }
        let budget = Set(BudgetChecker.descriptions.map(\.identifier))
        let failOn = config.diff.failOn
        let failing =
            findings.new.filter { $0.severity >= failOn } + findings.unchanged.filter { budget.contains($0.rule) }
        for finding in failing.prefix(2) { reasons.append(finding.message) }
        if failing.count > 2 { reasons.append("\(failing.count - 2) more findings at or above \(failOn.rawValue)") }
        let status: DiffReport.Verdict.Status
        if !regressions.isEmpty && !backing.isEmpty {
            status = .regression
        } else if !failing.isEmpty {
            status = .findings
        } else {
            status = regressions.isEmpty ? .pass : .unconfirmed
        }
        return .init(status: status, reasons: reasons)
    }

    func side(_ input: RuleInput, _ label: String) -> DiffReport.Side {
        guard let launch = input.launches.first else {
            return DiffReport.Side(label: label, objects: input.objects.count)
        }
        return DiffReport.Side(
            label: label, objects: input.objects.count, runs: launch.runs, cold: launch.cold,
            conditions: Self.conditionsText(launch.conditions),
            timeline: Self.timeline(launch.milestones, launch.objects))
    }

    /// Each field of `conditions` as one line of text, as its JSON value reads: strings bare,
    /// whole numbers without ".0", arrays joined with spaces, the pinning as sorted `key=value`
    /// pairs; fields without a value are left out.
    static func conditionsText(_ conditions: LaunchConditions) -> [String: String] {
        func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
        let pinning = conditions.pinning
        let pinningFields: [(String, String?)] = [
            ("measurerCPU", pinning.measurerCPU.map(String.init)), ("pinned", String(pinning.pinned)),
            ("reason", pinning.reason), ("targetCPU", pinning.targetCPU.map(String.init)),
        ]
        let fields: [(String, String?)] = [
            ("kernel", conditions.kernel), ("cpuModel", conditions.cpuModel),
            ("onlineCPUs", String(conditions.onlineCPUs)),
            ("allowedCPUs", conditions.allowedCPUs.map(String.init).joined(separator: " ")),
            ("frequencyGovernor", conditions.frequencyGovernor),
            ("loadAverage1m", conditions.loadAverage1m.map(number)),
            ("glibcVersion", conditions.glibcVersion),
            ("pinning", pinningFields.compactMap { key, value in value.map { key + "=" + $0 } }.joined(separator: " ")),
            ("measurerScheduling", conditions.measurerScheduling), ("cpuIdleLatency", conditions.cpuIdleLatency),
            ("runs", String(conditions.runs)), ("warmup", String(conditions.warmup)), ("cold", String(conditions.cold)),
            ("binaryPath", conditions.binaryPath), ("buildID", conditions.buildID),
            ("environmentOverrides", conditions.environmentOverrides.joined(separator: " ")),
            ("stdin", conditions.stdin),
            ("date", conditions.date),
        ]
        return Dictionary(uniqueKeysWithValues: fields.compactMap { key, value in value.map { (key, $0) } })
    }

    /// Loader work, each object's initializers (where the report says they started, else back
    /// to back ending at main), then main → first output → exit; medians from process birth.
    /// Returns `[]` when `main` was not reached.
    static func timeline(_ milestones: Milestones, _ objects: [ObjectMeasurement]) -> [DiffReport.TimelineSpan] {
        guard let main = milestones[.main]?.medianMs else { return [] }
        var spans: [DiffReport.TimelineSpan] = []
        let initializers = objects.compactMap { object in
            object.initializers.map {
                (ObjectName.fileName(object.path), $0.medianMs, object.initializersStart?.medianMs)
            }
        }
        let total = initializers.reduce(0) { $0 + $1.1 }
        var cursor = max(0, main - total)
        let loaderEnd = milestones[.loaderDone]?.medianMs ?? initializers.compactMap(\.2).min() ?? cursor
        spans.append(.init(label: "loader", startMs: 0, endMs: min(loaderEnd, main)))
        cursor = max(cursor, 0)
        for (name, duration, start) in initializers where duration > 0 {
            let begin = start ?? cursor
            spans.append(.init(label: "init " + name, startMs: begin, endMs: begin + duration))
            cursor = begin + duration
        }
        var last = main
        for (milestone, label) in [(milestones[.firstOutput], "main to first output"), (milestones[.exit], "to exit")] {
            guard let end = milestone?.medianMs, end >= last else { continue }
            spans.append(.init(label: label, startMs: last, endMs: end))
            last = end
        }
        return spans
    }
}
