import PremainModel

/// Renders launches and traced calls as Chrome/Perfetto trace-event JSON (`--export-trace`):
/// one track per counted run. Pure: report values in, text out.
///
/// - measure: one process per measured command, one thread per run, with the launch, its
///   loader phases (exec to loader start, mapping and relocation, initializers, main) nested,
///   each object's initializers inside the initializer phase, and the milestones as instants.
///   Uses every run when the report kept them (`rawSamples`), else the median run's timeline.
/// - compare: the same for each side (process 1 the base, process 2 the head), with the
///   verdict in `otherData`.
/// - trace: one process per counted run, one thread per target thread, each traced call a
///   slice nested in the calls open around it, with object, address and `file:line` as
///   arguments; milestones are process-wide instants. Needs `timelines`.
public enum TraceEventRenderer {
    /// Throws only when encoding fails (never for finite figures).
    public static func render(_ report: MeasureReport) throws -> String {
        var events: [TraceEvent] = []
        var other = ["tool": "premain \(premainVersion)", "source": "premain measure"]
        for (index, measurement) in report.measurements.enumerated() {
            let pid = index + 1
            let command = measurement.command.joined(separator: " ")
            events.append(.metadata("process_name", pid: pid, value: .text(command)))
            events.append(.metadata("process_sort_index", pid: pid, value: .number(Double(pid))))
            other["command\(pid)"] = command
            events += runs(of: measurement).flatMap { run, sample in
                launchEvents(sample, pid: pid, tid: run + 1, title: "run \(run + 1)")
            }
        }
        return try TraceEventDocument(traceEvents: events, otherData: other).rendered()
    }

    /// The base's runs as process 1, the head's as process 2; verdict and reasons in `otherData`.
    public static func render(_ report: CompareReport) throws -> String {
        var events: [TraceEvent] = []
        for (pid, side, role) in [(1, report.base, "base"), (2, report.head, "head")] {
            events.append(.metadata("process_name", pid: pid, value: .text("\(role): \(side.label)")))
            events.append(.metadata("process_sort_index", pid: pid, value: .number(Double(pid))))
            for (run, sample) in (side.samples ?? []).enumerated() {
                events += launchEvents(sample, pid: pid, tid: run + 1, title: "\(role) run \(run + 1)")
            }
        }
        let other = [
            "tool": "premain \(premainVersion)", "source": "premain compare",
            "verdict": report.verdict.title, "reasons": report.reasons.joined(separator: "; "),
            "base": report.base.path, "head": report.head.path,
        ]
        return try TraceEventDocument(traceEvents: events, otherData: other).rendered()
    }

    /// One process per counted run of each traced command; threads as the target made them.
    public static func render(_ report: TraceReport) throws -> String {
        var events: [TraceEvent] = []
        var other = [
            "tool": "premain \(premainVersion)", "source": "premain trace",
            "biasMs": Milliseconds.text(report.bias.pairMs),
        ]
        var pid = 0
        for measurement in report.measurements {
            let command = measurement.command.joined(separator: " ")
            other["command"] = command
            for timeline in measurement.timelines ?? [] {
                pid += 1
                events.append(.metadata("process_name", pid: pid, value: .text("run \(timeline.run + 1): \(command)")))
                events.append(.metadata("process_sort_index", pid: pid, value: .number(Double(pid))))
                let threads = Set(timeline.calls.map(\.thread)).sorted()
                for (order, thread) in threads.enumerated() {
                    events.append(
                        .metadata(
                            "thread_name", pid: pid, tid: Int(thread),
                            value: .text(order == 0 ? "thread \(thread) (first to call)" : "thread \(thread)")))
                    events.append(
                        .metadata("thread_sort_index", pid: pid, tid: Int(thread), value: .number(Double(order))))
                }
                for call in timeline.calls {
                    events.append(
                        .slice(
                            name(of: call, in: measurement), category: "call", startMs: call.startMs,
                            durationMs: call.durationMs, pid: pid, tid: Int(call.thread),
                            args: arguments(of: call, in: measurement)))
                }
                let milestoneTrack = Int(threads.first ?? 0)
                for (milestone, ms) in timeline.milestones.sorted(by: { $0.value < $1.value }) {
                    events.append(
                        .instant(
                            milestoneTitle(milestone), category: "milestone", ms: ms, pid: pid,
                            tid: milestoneTrack, scope: "p"))
                }
            }
        }
        return try TraceEventDocument(traceEvents: events, otherData: other).rendered()
    }

    /// The runs a measurement can draw: every kept run, or the median run alone.
    static func runs(of measurement: LaunchMeasurement) -> [(Int, LaunchSample)] {
        if let samples = measurement.rawSamples, !samples.isEmpty {
            return Array(samples.enumerated())
        }
        guard let timeline = measurement.medianRunTimeline else { return [] }
        let median = LaunchSample(
            birthNs: 0, instrumented: true, loader: timeline,
            firstOutputMs: measurement.milestones[.firstOutput]?.medianMs, firstOutputStream: nil,
            exitMs: measurement.milestones[.exit]?.medianMs,
            outcome: LaunchOutcome(kind: .success, message: "median run"), stderrHead: "")
        return [(measurement.medianRun ?? 0, median)]
    }

    /// One launch as nested slices on one track: the launch, its phases, each object's
    /// initializers inside the initializer phase; milestones and mapped objects as instants.
    static func launchEvents(_ sample: LaunchSample, pid: Int, tid: Int, title: String) -> [TraceEvent] {
        var events: [TraceEvent] = [
            .metadata("thread_name", pid: pid, tid: tid, value: .text(title)),
            .metadata("thread_sort_index", pid: pid, tid: tid, value: .number(Double(tid))),
        ]
        let phases = LaunchPhases(sample)
        let end = phases.end
        events.append(
            .slice(
                title, category: "launch", startMs: 0, durationMs: end, pid: pid, tid: tid,
                args: ["outcome": .text(sample.outcome.message)]))
        for phase in phases.phases {
            events.append(
                .slice(
                    phase.title, category: "phase", startMs: phase.startMs,
                    durationMs: phase.endMs - phase.startMs, pid: pid, tid: tid))
        }
        if let loader = sample.loader {
            let window = phases.initializerWindow
            for call in loader.initializers {
                let start = min(max(call.startMs, window.lowerBound), window.upperBound)
                let stop = min(call.durationMs.map { call.startMs + $0 } ?? window.upperBound, window.upperBound)
                events.append(
                    .slice(
                        ObjectName.fileName(call.path), category: "initializers", startMs: start,
                        durationMs: stop - start, pid: pid, tid: tid,
                        args: ["object": .text(call.path), "program": .text(call.isProgram ? "yes" : "no")]))
            }
            for object in loader.objects {
                guard let mapped = object.mappedMs else { continue }
                var args: [String: TraceEvent.Argument] = ["object": .text(object.name)]
                if let parent = object.neededBy { args["neededBy"] = .text(parent) }
                events.append(
                    .instant(
                        "mapped \(ObjectName.fileName(object.name))", category: "loader", ms: mapped,
                        pid: pid, tid: tid, args: args))
            }
        }
        for (name, ms) in phases.milestones {
            events.append(.instant(name, category: "milestone", ms: ms, pid: pid, tid: tid))
        }
        return events
    }

    static func name(of call: TraceCallSlice, in measurement: TraceMeasurement) -> String {
        measurement.function(of: call)?.demangled ?? call.symbol
    }

    static func arguments(of call: TraceCallSlice, in measurement: TraceMeasurement) -> [String: TraceEvent.Argument] {
        var args: [String: TraceEvent.Argument] = [
            "object": .text(call.object), "address": .text("0x" + String(call.address, radix: 16)),
            "symbol": .text(call.symbol), "inclusiveMs": .number(TraceEvent.microseconds(call.inclusiveMs) / 1000),
        ]
        if let function = measurement.function(of: call) {
            args["kind"] = .text(function.kind.title)
            if let source = function.source { args["source"] = .text(source.description) }
            if let inlined = function.inlinedInto { args["inlinedInto"] = .text(inlined) }
        }
        return args
    }

    /// "main", "first output", "exit", or the `--until` symbol as given.
    static func milestoneTitle(_ key: String) -> String {
        switch key {
        case "firstOutput": return "first output"
        default: return key
        }
    }
}
