import PremainModel

/// Identifies a traced function across runs: the object, the symbol and its link-time entry
/// address (two local functions of one object may share a name).
struct TracedFunctionKey: Hashable, Sendable {
    var object: String
    var symbol: String
    var entry: UInt64
    /// The program image (1, then 2 after an execve, …): libc's initializers run once per image.
    var image: Int = 1
}

/// One completed call of a traced function, as the tracer saw it.
struct TracedCall: Sendable, Equatable {
    /// From resuming the thread after the entry stop to waking at the return stop.
    var rawNs: UInt64
    /// Stops of this thread handled while the call was open (inner traced calls, writes...).
    var nestedStops: Int
    /// Time the tracer spent handling those stops (measured).
    var nestedHandlingNs: UInt64
    /// Tracer time spent at the entry stop and at the return stop of this call.
    var handlingNs: UInt64
    /// The function was already running on this thread (recursion): the call is counted but
    /// its time is inside the outer call's.
    var recursive = false
    /// Completed calls of traced functions directly inside this one.
    var children = Children()
    /// ns from process birth to the call's start, the thread that made it and the traced calls
    /// open around it on that thread (for `TraceRunTimeline`).
    var startSinceBirthNs: UInt64 = 0
    var thread: Int32 = 0
    var depth = 0

    /// What the direct inner calls of a call add up to, kept raw until the bias is known.
    struct Children: Sendable, Equatable {
        var rawNs: UInt64 = 0
        /// Their own pairs plus the stops nested in them.
        var stops = 0
        var handlingNs: UInt64 = 0

        mutating func add(_ call: TracedCall) {
            rawNs &+= call.rawNs
            stops += 1 + call.nestedStops
            handlingNs &+= call.nestedHandlingNs
        }
    }

    /// Inclusive time in ns with the tracer's cost removed: one bias for this call's own pair,
    /// one bias and the measured handling time for every nested stop. Never negative.
    func correctedNs(biasNs: Double) -> Double {
        max(0, Double(rawNs) - biasNs * Double(1 + nestedStops) - Double(nestedHandlingNs))
    }

    /// Corrected time minus the corrected time of the traced calls directly inside it (their
    /// stops are already among this call's nested stops). Never negative.
    func exclusiveNs(biasNs: Double) -> Double {
        let inner = Double(children.rawNs) - biasNs * Double(children.stops) - Double(children.handlingNs)
        return max(0, correctedNs(biasNs: biasNs) - max(0, inner))
    }
}

/// What one traced launch produced.
struct TraceRunRecord: Sendable {
    /// Per function: the probe and its completed calls, in order.
    var functions: [TracedFunctionKey: (probe: TraceProbe, calls: [TracedCall], hits: Int, capped: Bool)]
    /// Calls that were entered but did not return inside the window (crash, longjmp, window end).
    var unfinished: [TracedFunctionKey: Int]
    /// Milestones reached, in ms since birth: "main", "firstOutput", "exit", or the `--until` symbol.
    var milestones: [String: Double]
    var outcome: TraceOutcome
    /// The first bytes the target wrote to stderr, kept to explain a failed run.
    var stderrHead: String = ""
    /// The `--until` function was found in some object (always true for other milestones).
    var untilFound = true
    /// Functions found but not timed, with the reason.
    var untimed: [UntimedFunction]
    /// Things that went wrong but did not stop the run.
    var notes: [String]
    /// The tracer thread ran at a raised priority (nice -10) during the run.
    var tracerPriorityRaised: Bool
}

extension TraceRunRecord {
    /// Renames objects (`names`: real path → loader path) in functions, unfinished calls and
    /// untimed functions.
    mutating func rename(_ names: [String: String]) {
        guard !names.isEmpty else { return }
        func renamed(_ key: TracedFunctionKey) -> TracedFunctionKey {
            TracedFunctionKey(
                object: names[key.object] ?? key.object, symbol: key.symbol, entry: key.entry, image: key.image)
        }
        var renamedFunctions: [TracedFunctionKey: (probe: TraceProbe, calls: [TracedCall], hits: Int, capped: Bool)] =
            [:]
        for (key, var entry) in functions {
            entry.probe.object = names[entry.probe.object] ?? entry.probe.object
            renamedFunctions[renamed(key)] = entry
        }
        functions = renamedFunctions
        unfinished = Dictionary(unfinished.map { (renamed($0.key), $0.value) }, uniquingKeysWith: +)
        for index in untimed.indices { untimed[index].object = names[untimed[index].object] ?? untimed[index].object }
    }
}

/// Turns the records of several runs into one measurement: per-function inclusive time per run
/// with the bias removed, milestones, outcomes, source locations.
struct TraceAggregator {
    let biasMs: Double
    let planner: ProbePlanner

    static func hex(_ address: UInt64) -> String { "0x" + String(address, radix: 16) }

    /// "N of M runs: outcome[: the loader's error]" per distinct failure, most frequent first.
    static func failures(_ records: [TraceRunRecord]) -> [String] {
        var counts: [(String, Int)] = []
        for record in records where !record.outcome.succeeded {
            var text = record.outcome.description
            if let line = record.stderrHead.split(separator: "\n").first(where: {
                $0.contains("error while loading shared libraries")
            }) {
                text += ": the loader failed: \(line)"
            } else if case .exited = record.outcome, let line = record.stderrHead.split(separator: "\n").first {
                text += ": \(line.prefix(200))"
            }
            if let index = counts.firstIndex(where: { $0.0 == text }) {
                counts[index].1 += 1
            } else {
                counts.append((text, 1))
            }
        }
        return counts.sorted { $0.1 > $1.1 }.map { "\($0.1) of \(records.count) runs: \($0.0)" }
    }

    func measurement(of records: [TraceRunRecord], options: TraceOptions, conditions: LaunchConditions)
        -> TraceMeasurement
    {
        var samples: [TracedFunctionKey: [Double]] = [:]
        var exclusiveSamples: [TracedFunctionKey: [Double]] = [:]
        var calls: [TracedFunctionKey: Int] = [:]
        var capped: [TracedFunctionKey: Bool] = [:]
        var unfinished: [TracedFunctionKey: Int] = [:]
        var probes: [TracedFunctionKey: TraceProbe] = [:]
        for record in records {
            for (key, entry) in record.functions {
                probes[key] = entry.probe
                let total = entry.calls.filter { !$0.recursive }
                    .reduce(0.0) { $0 + $1.correctedNs(biasNs: biasMs * 1e6) }
                if !entry.calls.isEmpty {
                    samples[key, default: []].append(total / 1e6)
                    let exclusive = entry.calls.reduce(0.0) { $0 + $1.exclusiveNs(biasNs: biasMs * 1e6) }
                    exclusiveSamples[key, default: []].append(exclusive / 1e6)
                }
                calls[key] = max(calls[key] ?? 0, entry.hits)
                capped[key] = (capped[key] ?? false) || entry.capped
            }
            for (key, count) in record.unfinished { unfinished[key, default: 0] += count }
        }
        var functions: [TracedFunction] = []
        for (key, probe) in probes {
            guard let timing = TimeSummary(samplesMs: samples[key] ?? []) else { continue }
            let source = planner.sourceLocation(of: probe)
            functions.append(
                TracedFunction(
                    object: key.object, symbol: key.symbol, demangled: probe.demangled, kind: probe.kind,
                    calls: calls[key] ?? 0, callsCapped: capped[key] ?? false, inclusive: timing,
                    exclusive: TimeSummary(samplesMs: exclusiveSamples[key] ?? []), source: source,
                    inlinedInto: probe.inlinedInto, unfinishedCalls: unfinished[key] ?? 0))
            functions[functions.count - 1].address = Self.hex(key.entry)
            functions[functions.count - 1].ifuncResolver = probe.isIFuncResolver ? true : nil
            functions[functions.count - 1].image = key.image > 1 ? key.image : nil
        }
        functions.sort {
            $0.inclusive.medianMs != $1.inclusive.medianMs
                ? $0.inclusive.medianMs > $1.inclusive.medianMs
                : ($0.object, $0.symbol) < ($1.object, $1.symbol)
        }
        // Entered but never completed in any run (crash inside): listed with what is known.
        for (key, count) in unfinished.sorted(by: { $0.key.symbol < $1.key.symbol }) where samples[key] == nil {
            guard let probe = probes[key] else { continue }
            functions.append(
                TracedFunction(
                    object: key.object, symbol: key.symbol, demangled: probe.demangled, kind: probe.kind,
                    calls: calls[key] ?? 0, callsCapped: capped[key] ?? false,
                    inclusive: .zero, source: planner.sourceLocation(of: probe),
                    inlinedInto: probe.inlinedInto, unfinishedCalls: count))
            functions[functions.count - 1].address = Self.hex(key.entry)
            functions[functions.count - 1].ifuncResolver = probe.isIFuncResolver ? true : nil
        }
        var milestoneSamples: [String: [Double]] = [:]
        for record in records {
            for (name, ms) in record.milestones { milestoneSamples[name, default: []].append(ms) }
        }
        let timedKeys = Set(functions.map { "\($0.object)|\($0.symbol)" })
        var seenUntimed = Set<String>()
        // A --function not in the executable but found in a library it loaded was timed there.
        let foundQueries = Set(
            options.functions.filter { query in
                functions.contains { ProbePlanner.matches(query, mangled: $0.symbol, demangled: $0.demangled) }
            })
        let untimed = records.flatMap(\.untimed).filter {
            !($0.kind == .named && foundQueries.contains($0.symbol))
                && !timedKeys.contains("\($0.object)|\($0.symbol)")
                && seenUntimed.insert("\($0.object)|\($0.symbol)").inserted
        }
        var seenNotes = Set<String>()
        let advice = Self.advice(functions: functions, records: records, options: options, conditions: conditions)
        var measurement = TraceMeasurement(
            command: options.command, runs: records.count, warmup: options.warmup, until: options.until,
            maxCalls: options.maxCalls, conditions: conditions,
            milestones: milestoneSamples.compactMapValues { TimeSummary(samplesMs: $0) },
            outcomes: records.map(\.outcome), functions: functions, untimed: untimed,
            notes: (records.flatMap(\.notes) + advice).filter { seenNotes.insert($0).inserted },
            timelines: options.keepTimelines ? timelines(of: records) : nil)
        let failures = Self.failures(records)
        measurement.failures = failures.isEmpty ? nil : failures
        return measurement
    }

    /// What the reader should know of these runs: a load above the CPUs, calls past
    /// `--max-calls`, an `--until` never found, IFUNC resolvers timed instead of implementations.
    static func advice(
        functions: [TracedFunction], records: [TraceRunRecord], options: TraceOptions, conditions: LaunchConditions
    ) -> [String] {
        var advice: [String] = []
        let cpus = conditions.allowedCPUs.count
        if let load = conditions.loadAverage1m, cpus > 0, load > Double(cpus) {
            advice.append(
                "the load average (\(Milliseconds.number(load, decimals: 1))) was above the number of CPUs (\(cpus)): other work preempts launches and timings spread; trace on a quiet machine"
            )
        }
        let cappedCount = functions.filter(\.callsCapped).count
        if cappedCount > 0 {
            advice.append(
                "\(cappedCount) functions reached --max-calls \(options.maxCalls) and were no longer timed after that; raise --max-calls to time every call"
            )
        }
        if case .symbol(let name) = options.until, !records.isEmpty, records.allSatisfy({ !$0.untilFound }) {
            advice.append(
                "--until \(name): no function with this name was found in any object the program loaded, so every run went on to its exit"
            )
        }
        let resolvers = functions.filter { $0.ifuncResolver == true }.map { $0.demangled ?? $0.symbol }
        if !resolvers.isEmpty {
            advice.append(
                "\(resolvers.joined(separator: ", ")): GNU IFUNC symbols; what was timed is the resolver the loader runs once to pick an implementation, not the implementation (name that, e.g. __strlen_avx2, with --function)"
            )
        }
        return advice
    }

    /// Every completed call of each run as a slice, sorted by start (outer calls first).
    func timelines(of records: [TraceRunRecord]) -> [TraceRunTimeline] {
        records.enumerated().map { run, record in
            var slices: [TraceCallSlice] = []
            for (key, entry) in record.functions {
                for call in entry.calls {
                    slices.append(
                        TraceCallSlice(
                            thread: call.thread, object: key.object, symbol: key.symbol, address: entry.probe.entry,
                            startMs: Double(call.startSinceBirthNs) / 1e6, durationMs: Double(call.rawNs) / 1e6,
                            inclusiveMs: call.correctedNs(biasNs: biasMs * 1e6) / 1e6, depth: call.depth))
                }
            }
            slices.sort { ($0.startMs, $0.depth, $0.symbol) < ($1.startMs, $1.depth, $1.symbol) }
            return TraceRunTimeline(run: run, calls: slices, milestones: record.milestones)
        }
    }
}
