import Foundation
import PremainTestSupport

@testable import PremainAudit
@testable import PremainJudge
@testable import PremainModel

/// Turns the sample names of `RuleDescription.triggeringSamples` into `RuleInput`s:
///
/// - `path/of/sample`: the built file, audited; for an executable also its closure as
///   `ldd` (an independent reader) resolves it, with depths from the audits' DT_NEEDED.
/// - `measured:path?VAR=ms&...`: the same plus launches of the self-timed sample (see
///   samples/README.md): `PREMAIN_SAMPLE_COST_<VAR>_MS` set as given, each initializer's logged
///   duration becomes a trace-shaped `TracedFunction`, the time from spawn to `main` a
///   measure-shaped milestone.
enum RuleSamples {
    /// A built sample or rule sample (both are in `Samples.directory`).
    static func path(_ relative: String) throws -> String { try Samples.path(relative) }

    static func input(_ name: String, runs: Int = 3) throws -> RuleInput {
        var sample = name
        var measured = false
        if sample.hasPrefix("measured:") {
            measured = true
            sample.removeFirst("measured:".count)
        }
        var costs: [String: String] = [:]
        if let question = sample.firstIndex(of: "?") {
            for pair in sample[sample.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { costs[parts[0]] = parts[1] }
            }
            sample = String(sample[..<question])
        }
        let file = try path(sample)
        let binary = try InventoryBuilder.audit(
            path: file, options: InventoryOptions(symbolLists: true, demangle: true))
        var input = RuleInput(objects: [binary])
        if binary.header.interpreter != nil { input.closures.append(try lddClosure(file, binary)) }
        if measured {
            let launches = try (0..<runs).map { _ in try SelfTimedRun.launch(file, costs: costs) }
            input.launches = [SelfTimedRun.launchMeasurement(launches, program: file)]
            input.functions = SelfTimedRun.functions(launches, program: file)
        }
        return input
    }

    /// The closure `ldd` reports, with depth by breadth-first search over DT_NEEDED and the
    /// program's unused direct dependencies from `ldd -u`.
    static func lddClosure(_ file: String, _ binary: BinaryInventory) throws -> ProgramClosure {
        let listing = try Shell.run(["ldd", file]).stdout
        var resolved: [String: String] = [:]
        var missing: [String] = []
        var interpreter: String?
        for line in listing.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.contains("=> not found") {
                missing.append(String(text.split(separator: " ")[0]))
            } else if let arrow = text.range(of: " => ") {
                let name = String(text[..<arrow.lowerBound])
                let rest = text[arrow.upperBound...]
                if let path = rest.split(separator: " ").first { resolved[name] = String(path) }
            } else if text.hasPrefix("/") {
                interpreter = String(text.split(separator: " ")[0])
            }
        }
        var objects: [ClosureObject] = []
        var queue: [(name: String, depth: Int, parent: String, needed: [String])] =
            binary.needed.map { ($0, 1, ObjectName.of(binary), []) }
        var seen: Set<String> = []
        var missingLibraries: [MissingLibrary] = []
        while !queue.isEmpty {
            let item = queue.removeFirst()
            guard seen.insert(item.name).inserted else { continue }
            guard let path = resolved[item.name] else {
                if missing.contains(item.name) {
                    missingLibraries.append(
                        MissingLibrary(name: item.name, neededBy: item.parent, searched: [], wrongClass: []))
                }
                continue
            }
            let audit = try? InventoryBuilder.audit(path: path)
            let object = closureObject(
                path, soname: audit?.header.soname ?? item.name, requested: item.name, depth: item.depth,
                neededBy: item.parent, system: path.hasPrefix("/lib") || path.hasPrefix("/usr/lib"))
            objects.append(object)
            for next in audit?.needed ?? [] { queue.append((next, item.depth + 1, object.path, [])) }
        }
        if let interpreter {
            objects.append(
                closureObject(
                    interpreter, soname: "ld-linux-x86-64.so.2", requested: interpreter, depth: 1, neededBy: file,
                    system: true))
        }
        let unusedListing = try Shell.run(["ldd", "-u", file]).stdout
        let unused = unusedListing.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let path = line.trimmingCharacters(in: .whitespaces)
            return resolved.first { $0.value == path }?.key
        }
        var closure = DependencyClosure(objects: objects, missing: missingLibraries)
        closure.unusedNeeded = unused
        return ProgramClosure(
            name: ObjectName.of(binary), path: binary.path, closure: closure, toolchain: binary.toolchain)
    }

    /// A closure object as `ldd` shows it: a path, no search details.
    static func closureObject(
        _ path: String, soname: String, requested: String, depth: Int, neededBy: String,
        system: Bool
    ) -> ClosureObject {
        ClosureObject(
            path: path, realPath: path, soname: soname, requestedName: requested, foundVia: .directPath,
            searchDirectory: nil, depth: depth, neededBy: neededBy, needed: [], system: system, cost: nil)
    }
}

/// Launches a self-timed sample and reads its log (samples/README.md, "Self-timing protocol").
enum SelfTimedRun {
    struct Launch {
        /// Log id → duration in ms.
        var durations: [(id: String, ms: Double)]
        /// From just before spawning to `main`'s log line, in ms; `nil` without a log.
        var toMainMs: Double?
    }

    /// Log ids of the samples → (object, symbol, trace kind); "exe" is the program itself.
    static let functions: [String: (object: String, symbol: String, kind: TracedFunctionKind)] = [
        "lib:registry.cpp": ("libinit.so", "_GLOBAL__sub_I_registry.cpp", .cxxTranslationUnitInitializer),
        "lib:plugins.cpp": ("libinit.so", "_GLOBAL__sub_I_plugins.cpp", .cxxTranslationUnitInitializer),
        "lib:ctor_c": ("libinit.so", "premain_lib_ctor_c", .constructorFunction),
        "exe:ctor_101": ("exe", "premain_exe_ctor_101", .constructorFunction),
        "exe:main.cpp": ("exe", "_GLOBAL__sub_I_main", .cxxTranslationUnitInitializer),
        "swift:defaultArgument": (
            "exe", "$s12SwiftStartup13HomeViewModelC14summaryServiceAcA07SummaryG0C_tcfcfA_", .swiftDefaultArgument
        ),
        "swift:lazyGlobal": ("exe", "$s12SwiftStartup11homeCatalog_WZ", .swiftLazyGlobal),
        "lib:core.c": ("libcore.so", "premain_core_ctor", .constructorFunction),
        "lib:extra.c": ("libextra.so", "premain_extra_ctor", .constructorFunction),
    ]

    static func launch(_ file: String, costs: [String: String]) throws -> Launch {
        let log = SelfTimingLog.temporaryPath("rule-sample")
        defer { try? FileManager.default.removeItem(atPath: log) }
        var environment = ["PREMAIN_SAMPLE_LOG": log]
        for (name, value) in costs { environment["PREMAIN_SAMPLE_COST_\(name)_MS"] = value }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: file)
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        let start = SelfTimingLog.nowNs()
        try process.run()
        process.waitUntilExit()
        // Samples without self-timing (c-hello) write no log: no durations, no milestone.
        var launch = Launch(durations: [], toMainMs: nil)
        for line in SelfTimingLog.lines(log) {
            if line.id == "main" {
                launch.toMainMs = Double(line.startNs &- start) / 1e6
            } else {
                launch.durations.append((line.id, line.durationMs))
            }
        }
        return launch
    }

    static func objectName(_ object: String, program: String) -> String {
        object == "exe" ? ObjectName.fileName(program) : object
    }

    static func launchMeasurement(_ launches: [Launch], program: String) -> LaunchMeasurement {
        var perObject: [String: [Double]] = [:]
        var order: [String] = []
        for launch in launches {
            var sums: [String: Double] = [:]
            for (id, ms) in launch.durations {
                guard let function = functions[id], function.kind != .swiftDefaultArgument,
                    function.kind != .swiftLazyGlobal
                else { continue }
                let name = objectName(function.object, program: program)
                if !order.contains(name) { order.append(name) }
                sums[name, default: 0] += ms
            }
            for (name, sum) in sums { perObject[name, default: []].append(sum) }
        }
        return measurement(
            command: program, runs: launches.count,
            milestones: Milestones([.main: TimeSummary(samplesMs: launches.compactMap(\.toMainMs))]),
            objects: order.map {
                .init(path: "/samples/" + $0, role: .library, initializers: TimeSummary(samplesMs: perObject[$0] ?? []))
            })
    }

    /// A warm measurement of `command` with nothing but its milestones and objects (conditions
    /// empty, as a report that recorded none reads).
    static func measurement(
        command: String, runs: Int, milestones: Milestones,
        objects: [ObjectMeasurement] = []
    ) -> LaunchMeasurement {
        let conditions = LaunchConditions(
            kernel: "", cpuModel: nil, onlineCPUs: 0, allowedCPUs: [], frequencyGovernor: nil, loadAverage1m: nil,
            glibcVersion: "",
            pinning: CPUPinning(pinned: false, measurerCPU: nil, targetCPU: nil, reason: nil), runs: runs, warmup: 0,
            cold: false,
            binaryPath: command, buildID: nil, environmentOverrides: [], stdin: "", date: "")
        return LaunchMeasurement(
            command: [command], runs: runs, warmup: 0, cold: false, conditions: conditions, status: .ok,
            failures: [], outcomes: [], milestones: milestones, objects: objects, warnings: [])
    }

    static func functions(_ launches: [Launch], program: String) -> [TracedFunction] {
        var samples: [String: [Double]] = [:]
        var order: [String] = []
        for launch in launches {
            for (id, ms) in launch.durations where functions[id] != nil {
                if samples[id] == nil { order.append(id) }
                samples[id, default: []].append(ms)
            }
        }
        return order.compactMap { id in
            guard let function = functions[id], let summary = TimeSummary(samplesMs: samples[id] ?? []) else {
                return nil
            }
            return TracedFunction(
                object: "/samples/" + objectName(function.object, program: program), symbol: function.symbol,
                demangled: Demangler.demangle(function.symbol), kind: function.kind, calls: 1, callsCapped: false,
                inclusive: summary, source: nil, inlinedInto: nil, unfinishedCalls: 0)
        }
    }
}
