import PremainAudit
import PremainModel

/// Evaluates the budgets and the initializer allowlist of premain.json against one input.
/// Every violation is a `Finding` of severity `error` whose rule is the budget's name.
public enum BudgetChecker {
    /// The identifiers of budget findings, with what each one checks (for `premain rules`
    /// and SARIF).
    public static let descriptions: [(identifier: String, summary: String)] = [
        (
            "budget_initializers_per_object",
            "An object has more static initializers than budgets.maxInitializersPerObject"
        ),
        ("budget_closure_objects", "A program maps more objects than budgets.maxClosureObjects"),
        ("budget_time_to_main", "The median time to main exceeds budgets.maxMedianMsToMain"),
        ("budget_time_to_first_output", "The median time to first output exceeds budgets.maxMedianMsToFirstOutput"),
        ("initializer_allowlist", "An object's static initializers differ from the allowlist in premain.json"),
        (
            "budget_launch_median",
            "A declared launch's median at a milestone exceeds its launches[].budgets.maxMedianMs"
        ),
        (
            "budget_function_time",
            "A function on the start-up path takes longer than its budget (budgets.functions, maxMsPerFunctionKind, maxMsPerFunction)"
        ),
    ]

    /// Every traced function over its budget: its own (`budgets.functions`), else its kind's,
    /// else `maxMsPerFunction`; judged on the median inclusive time over the traced runs.
    public static func functionBudgets(
        _ functions: [TracedFunction], _ budgets: PremainConfig.Budgets,
        measuredBy source: String = "traced"
    ) -> [Finding] {
        functions.compactMap { function in
            guard !function.inclusive.samplesMs.isEmpty,
                let (limit, key) = budgets.limit(
                    symbol: function.symbol, demangled: function.demangled, kind: function.kind),
                function.inclusive.medianMs > limit
            else { return nil }
            let name = SwiftName.display(symbol: function.symbol, demangled: function.demangled)
            return Finding(
                rule: "budget_function_time", severity: .error,
                subject: RuleInput.subject(path: function.object, symbol: function.subjectName),
                figure: function.inclusive.medianMs, threshold: limit, unit: "ms",
                message:
                    "\(name) (\(function.kind.title)) takes \(Milliseconds.text(function.inclusive.medianMs)) on the start-up path (median of \(function.inclusive.samplesMs.count) \(source) runs), the budget is \(Milliseconds.text(limit)) (\(key))",
                advice: "Make it cheaper or move it off the start-up path, or raise \(key) in premain.json",
                location: function.location)
        }
    }

    /// One row of the launch matrix against its launch's own budgets (`launches[].budgets.
    /// maxMedianMs`): each milestone whose median (`medians`, in ms, of `runs` runs: measure's,
    /// or head's in compare and pr) is over its limit. A milestone the row did not reach is not
    /// judged here: the row's own status says so.
    public static func launchBudgets(
        _ launch: DeclaredLaunch, row: String, medians: [Milestone: Double], runs: Int, side: String? = nil
    ) -> [Finding] {
        launch.budgets.sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { milestone, limit in
            guard let median = medians[milestone], median > limit else { return nil }
            let whose = side.map { " in \($0)" } ?? ""
            return Finding(
                rule: "budget_launch_median", severity: .error,
                subject: Finding.Subject(object: ObjectName.fileName(launch.run.first ?? ""), symbol: row),
                figure: median, threshold: limit, unit: "ms",
                message:
                    "launch \(row) reaches \(milestone.rawValue) after \(Milliseconds.text(median))\(whose) (median of \(runs) runs), the budget is \(Milliseconds.text(limit))",
                advice:
                    "Run premain trace on this launch to find the slow start-up work, or raise launches[].budgets.maxMedianMs.\(milestone.rawValue) in premain.json"
            )
        }
    }

    /// Head's medians of a compared row of the launch matrix, by milestone.
    public static func headMedians(_ report: CompareReport) -> [Milestone: Double] {
        var medians: [Milestone: Double] = [:]
        for time in report.times {
            if case .milestone(let milestone) = time.quantity { medians[milestone] = time.head.medianMs }
        }
        return medians
    }

    /// The functions a comparison traced in head that moved (`compare`'s causes), as traced
    /// functions for `functionBudgets`.
    public static func tracedFunctions(of causes: [StartupCause]) -> [TracedFunction] {
        causes.compactMap { cause in
            guard cause.evidence == .traced, let symbol = cause.symbol, let head = cause.head,
                let kind = TracedFunctionKind(cause.kind)
            else { return nil }
            return TracedFunction(
                object: cause.objectPath ?? cause.object, symbol: symbol, demangled: cause.function, kind: kind,
                calls: 1, callsCapped: false, inclusive: head, source: cause.source,
                inlinedInto: cause.inlinedInto, unfinishedCalls: 0)
        }
    }

    public static func check(_ input: RuleInput, _ config: PremainConfig) -> [Finding] {
        var findings: [Finding] = []
        let budgets = config.budgets
        let allowed = Dictionary(config.allowlist.map { ($0.object, $0) }, uniquingKeysWith: { first, _ in first })
        for binary in input.objects {
            let name = ObjectName.of(binary)
            let own = binary.initializers.entries.filter { !$0.toolchain }
            if let entry = allowed[name] {
                findings += allowlist(entry, binary, own)
            } else if let limit = budgets.maxInitializersPerObject, own.count > limit {
                findings.append(
                    Finding(
                        rule: "budget_initializers_per_object", severity: .error, subject: RuleInput.subject(binary),
                        figure: Double(own.count), threshold: Double(limit), unit: "initializers",
                        message: "\(name) has \(own.count) static initializers of its own, the budget is \(limit)",
                        advice:
                            "Remove initializers, or list \(name) in the allowlist of premain.json with its count and a reason",
                        location: own.firstLocation))
            }
        }
        if let limit = budgets.maxClosureObjects {
            for program in input.closures where program.closure.objects.count > limit {
                let count = program.closure.objects.count
                findings.append(
                    Finding(
                        rule: "budget_closure_objects", severity: .error, subject: RuleInput.subject(program),
                        figure: Double(count), threshold: Double(limit), unit: "objects",
                        message:
                            "\(program.name) maps \(Plural.count(count, "object")) before main, the budget is \(limit)",
                        advice: "Drop or merge dependencies, or raise budgets.maxClosureObjects in premain.json"))
            }
        }
        findings += functionBudgets(input.functions, budgets)
        // A measure report's rows of the launch matrix against their launches' own budgets.
        for launch in input.launches {
            guard let name = launch.launch, let declared = config.launches.first(where: { $0.name == name }) else {
                continue
            }
            var medians: [Milestone: Double] = [:]
            for milestone in Milestone.allCases {
                if let time = launch.milestones[milestone] { medians[milestone] = time.medianMs }
            }
            findings += launchBudgets(declared, row: launch.rowLabel, medians: medians, runs: launch.runs)
        }
        for launch in input.launches {
            let program = Finding.Subject(object: ObjectName.fileName(launch.command.first ?? ""))
            for (milestone, limit, rule, key) in [
                (Milestone.main, budgets.maxMedianMsToMain, "budget_time_to_main", "maxMedianMsToMain"),
                (
                    .firstOutput, budgets.maxMedianMsToFirstOutput, "budget_time_to_first_output",
                    "maxMedianMsToFirstOutput"
                ),
            ] {
                guard let limit, let time = launch.milestones[milestone], time.medianMs > limit else { continue }
                findings.append(
                    Finding(
                        rule: rule, severity: .error, subject: program, figure: time.medianMs, threshold: limit,
                        unit: "ms",
                        message:
                            "\(program.object) reaches \(milestone.rawValue) after \(Milliseconds.text(time.medianMs)) (median of \(launch.runs) runs), the budget is \(Milliseconds.text(limit))",
                        advice:
                            "Run premain trace to find the slow initializers, or raise budgets.\(key) in premain.json"))
            }
        }
        return findings
    }

    /// Exact-count check in both directions, Chromium style.
    static func allowlist(
        _ entry: PremainConfig.AllowedInitializers, _ binary: BinaryInventory,
        _ own: [InitializerInfo]
    ) -> [Finding] {
        let name = ObjectName.of(binary)
        var problems: [String] = []
        var added: [String] = []
        if own.count > entry.count {
            problems.append(
                "has \(own.count) static initializers, \(own.count - entry.count) more than the \(entry.count) allowed")
        } else if own.count < entry.count {
            problems.append(
                "has \(own.count) static initializers, \(entry.count - own.count) fewer than the \(entry.count) listed")
        }
        if let symbols = entry.symbols {
            let present = own.map { $0.demangled ?? $0.symbol ?? "?" }
            let rawNames = Set(own.compactMap(\.symbol))
            added = present.filter { !symbols.contains($0) && !rawNames.intersection(symbols).contains($0) }
            let gone = symbols.filter { listed in !present.contains(listed) && !rawNames.contains(listed) }
            if !added.isEmpty {
                problems.append("runs initializers not in the allowlist: \(added.joined(separator: ", "))")
            }
            if !gone.isEmpty { problems.append("no longer runs listed initializers: \(gone.joined(separator: ", "))") }
        }
        guard !problems.isEmpty else { return [] }
        let names = own.map { "\"\($0.demangled ?? $0.symbol ?? "?")\"" }.joined(separator: ", ")
        return [
            Finding(
                rule: "initializer_allowlist", severity: .error, subject: RuleInput.subject(binary),
                figure: Double(own.count), threshold: Double(entry.count), unit: "initializers",
                message: "\(name) \(problems.joined(separator: "; "))",
                advice: own.count < entry.count || (entry.symbols != nil && own.count <= entry.count)
                    ? "Update the allowlist entry for \(name) in premain.json: \"count\": \(own.count), \"symbols\": [\(names)]"
                    : "Remove the new initializer, or if it is needed update the allowlist entry for \(name) in premain.json to \"count\": \(own.count), \"symbols\": [\(names)] and say why in \"reason\"",
                location: own.filter { added.contains($0.demangled ?? $0.symbol ?? "?") }.firstLocation
                    ?? own.firstLocation)
        ]
    }
}
