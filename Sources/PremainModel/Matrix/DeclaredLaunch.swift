/// Whether a launch finds its files in the page cache (`warm`, as when it ran a moment ago) or
/// not (`cold`, as after a reboot or an update: the program, its loader and its closure are
/// evicted before every run, and the eviction is verified). Its raw value is its name in
/// premain.json, in reports and in history series.
public enum LaunchTemperature: String, Codable, Sendable, CaseIterable {
    case warm, cold

    /// The temperature of a series measured with `cold` set as `LaunchMeasurement.cold` is.
    public init(cold: Bool) {
        self = cold ? .cold : .warm
    }
}

/// Where each run of a declared launch ends and still counts as good: premain.json's `until`.
public enum LaunchEnd: Sendable, Equatable {
    /// Main is called (`"main"`; needs glibc's loader lines).
    case main
    /// The first byte of output (`"first-output"`).
    case firstOutput
    /// The process exits (`"exit"`, the default).
    case exit
    /// The first line of stdout or stderr that matches the pattern (`{"ready": PATTERN}`).
    case ready(String)
    /// The first call of a function, mangled or demangled (`{"function": NAME}`, x86-64).
    case function(String)

    /// As premain.json writes it: `main`, `first-output`, `exit`, `ready "listening on"`,
    /// `function NAME`.
    public var description: String {
        switch self {
        case .main: return "main"
        case .firstOutput: return "first-output"
        case .exit: return "exit"
        case .ready(let pattern): return "ready \"\(pattern)\""
        case .function(let name): return "function \(name)"
        }
    }
}

/// One launch declared in premain.json's `launches`: a way the program starts that matters,
/// with its own arguments, end and temperatures. Every command that launches takes the
/// declared launches as its matrix, one row per launch × temperature (`LaunchRow`).
public struct DeclaredLaunch: Sendable, Equatable {
    /// Unique among the launches; names its rows in reports, history series and exports.
    public var name: String
    /// The program and its arguments. The program is a path relative to the artifact folder
    /// (`compare`, `pr`), else looked up in PATH unless it holds a slash.
    public var run: [String]
    public var until: LaunchEnd
    /// Never empty, in premain.json's order; `[.warm]` by default.
    public var temperatures: [LaunchTemperature]
    /// Variables set for this launch over premain's own environment.
    public var environment: [String: String]
    /// A file the program reads as stdin; `nil`: /dev/null.
    public var stdin: String?
    /// The folder the program starts in; `nil`: premain's own.
    public var workingDirectory: String?
    /// Seconds before a run is killed; `nil`: the command line's `--timeout`, else no limit.
    public var timeoutSeconds: Double?
    /// Median milliseconds each milestone may take at most, checked per row by `check`.
    public var budgets: [Milestone: Double]

    public init(
        name: String, run: [String], until: LaunchEnd = .exit, temperatures: [LaunchTemperature] = [.warm],
        environment: [String: String] = [:], stdin: String? = nil, workingDirectory: String? = nil,
        timeoutSeconds: Double? = nil, budgets: [Milestone: Double] = [:]
    ) {
        self.name = name
        self.run = run
        self.until = until
        self.temperatures = temperatures
        self.environment = environment
        self.stdin = stdin
        self.workingDirectory = workingDirectory
        self.timeoutSeconds = timeoutSeconds
        self.budgets = budgets
    }

    /// Its rows, one per temperature.
    public var rows: [LaunchRow] {
        temperatures.map { LaunchRow(launch: self, temperature: $0) }
    }

    /// `environment` over `base` (`NAME=value` strings): a variable set here replaces the one
    /// inherited; the rest keep their order.
    public func environment(over base: [String]) -> [String] {
        guard !environment.isEmpty else { return base }
        let kept = base.filter { entry in
            let name = entry.split(separator: "=", maxSplits: 1).first.map(String.init) ?? entry
            return environment[name] == nil
        }
        return kept + environment.keys.sorted().map { "\($0)=\(environment[$0] ?? "")" }
    }
}

/// One row of the launch matrix: a declared launch at one temperature. Warm and cold runs of a
/// launch are never mixed in one row.
public struct LaunchRow: Sendable, Equatable {
    public var launch: DeclaredLaunch
    public var temperature: LaunchTemperature

    public init(launch: DeclaredLaunch, temperature: LaunchTemperature) {
        self.launch = launch
        self.temperature = temperature
    }

    /// "version", or "format (cold)": the row's name in reports.
    public var label: String {
        LaunchRow.label(name: launch.name, temperature: temperature)
    }

    /// "NAME" warm, "NAME (cold)" cold; the command line's unnamed launch is "launch".
    public static func label(name: String?, temperature: LaunchTemperature) -> String {
        let shown = name ?? "launch"
        return temperature == .cold ? "\(shown) (cold)" : shown
    }
}

extension Array where Element == DeclaredLaunch {
    /// The rows of the launches named in `names` (all of them when `names` is empty), in
    /// declaration order; throws the first name no launch has, with the names there are.
    public func rows(named names: [String]) throws(UnknownLaunch) -> [LaunchRow] {
        for name in names where !contains(where: { $0.name == name }) {
            throw UnknownLaunch(name: name, known: map(\.name))
        }
        return filter { names.isEmpty || names.contains($0.name) }.flatMap(\.rows)
    }
}

/// `--launch NAME` names no declared launch.
public struct UnknownLaunch: Error, Equatable, CustomStringConvertible {
    public var name: String
    /// The declared names, in order.
    public var known: [String]

    public var description: String {
        known.isEmpty
            ? "no launch '\(name)': premain.json declares no launches"
            : "no launch '\(name)'; premain.json declares \(known.joined(separator: ", "))"
    }
}
