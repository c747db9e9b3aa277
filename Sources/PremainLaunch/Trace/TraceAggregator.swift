import PremainAudit
import PremainModel

/// Turns the records of several runs into one measurement: per-function inclusive time per run
/// with the bias removed, milestones, outcomes, source locations.
struct TraceAggregator {
    let biasMs: Double
    let planner: ProbePlanner

    func measurement(of records: [TraceRunRecord], options: TraceOptions, conditions: LaunchConditions) -> TraceMeasurement {
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
            let source = probe.source ?? planner.debugInfo(for: probe.object)?.sourceLocation(of: probe.entry)
            functions.append(TracedFunction(
                object: key.object, symbol: key.symbol, demangled: probe.demangled, kind: probe.kind,
                calls: calls[key] ?? 0, callsCapped: capped[key] ?? false, inclusive: timing,
                exclusive: TimeSummary(samplesMs: exclusiveSamples[key] ?? []), source: source,
                inlinedInto: probe.inlinedInto, unfinishedCalls: unfinished[key] ?? 0))
        }
        functions.sort {
            $0.inclusive.medianMs != $1.inclusive.medianMs ? $0.inclusive.medianMs > $1.inclusive.medianMs
                : ($0.object, $0.symbol) < ($1.object, $1.symbol)
        }
        // Entered but never completed in any run (crash inside): listed with what is known.
        for (key, count) in unfinished.sorted(by: { $0.key.symbol < $1.key.symbol }) where samples[key] == nil {
            guard let probe = probes[key] else { continue }
            functions.append(TracedFunction(
                object: key.object, symbol: key.symbol, demangled: probe.demangled, kind: probe.kind,
                calls: calls[key] ?? 0, callsCapped: capped[key] ?? false,
                inclusive: .zero, source: planner.debugInfo(for: probe.object)?.sourceLocation(of: probe.entry),
                inlinedInto: probe.inlinedInto, unfinishedCalls: count))
        }
        var milestoneSamples: [String: [Double]] = [:]
        for record in records {
            for (name, ms) in record.milestones { milestoneSamples[name, default: []].append(ms) }
        }
        let timedKeys = Set(functions.map { "\($0.object)|\($0.symbol)" })
        var seenUntimed = Set<String>()
        let untimed = records.flatMap(\.untimed).filter {
            !timedKeys.contains("\($0.object)|\($0.symbol)") && seenUntimed.insert("\($0.object)|\($0.symbol)").inserted
        }
        var seenNotes = Set<String>()
        var advice: [String] = []
        let cpus = conditions.allowedCPUs.count
        if let load = conditions.loadAverage1m, cpus > 0, load > Double(cpus) {
            advice.append("the load average (\(Milliseconds.number(load, decimals: 1))) was above the number of CPUs (\(cpus)): other work preempts launches and timings spread; trace on a quiet machine")
        }
        let cappedCount = functions.filter(\.callsCapped).count
        if cappedCount > 0 {
            advice.append("\(cappedCount) functions reached --max-calls \(options.maxCalls) and were no longer timed after that; raise --max-calls to time every call")
        }
        return TraceMeasurement(
            command: options.command, runs: records.count, warmup: options.warmup, until: options.until.description,
            maxCalls: options.maxCalls, conditions: conditions,
            milestones: milestoneSamples.compactMapValues { TimeSummary(samplesMs: $0) },
            outcomes: records.map(\.outcome.description), functions: functions, untimed: untimed,
            notes: (records.flatMap(\.notes) + advice).filter { seenNotes.insert($0).inserted })
    }
}
