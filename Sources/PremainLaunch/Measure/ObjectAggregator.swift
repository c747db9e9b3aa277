import PremainAudit
import PremainModel

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
                pathByName[ObjectAggregator.basename(call.path)] = call.path
            }
            for call in timeline.initializers {
                let key = call.isProgram ? executablePath : call.path
                let role: ObjectMeasurement.Role = call.isProgram ? .executable
                    : (ObjectAggregator.basename(call.path).hasPrefix("ld-linux") ? .loader : .library)
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

    static func basename(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
