import PremainModel

/// premain.json's `launches`: each launch checked key by key, so a mistake (an unknown key, a
/// wrong type, a name given twice, no program) is an error naming its key before anything is
/// built or launched.
struct LaunchesParser {
    static let launchKeys = ["name", "run", "until", "temperature", "env", "stdin", "cwd", "timeout", "budgets"]
    static let untilWords = ["main", "first-output", "exit"]
    static let untilKeys = ["ready", "function"]
    /// The range of `timeout`, the command line's `--timeout`'s.
    static let timeoutSeconds: ClosedRange<Double> = 0.001...86_400

    var reader: ConfigParser.Reader
    var file: String { reader.file }

    func launches(_ value: JSONValue) throws(ConfigError) -> [DeclaredLaunch] {
        guard case .array(let entries) = value else {
            throw ConfigError(
                file: file, key: "launches",
                message: "expected an array of {name, run, until, …}, found \(value.kindName)")
        }
        var launches: [DeclaredLaunch] = []
        for (index, entry) in entries.enumerated() {
            let launch = try self.launch(entry, "launches[\(index)]")
            if let first = launches.firstIndex(where: { $0.name == launch.name }) {
                throw ConfigError(
                    file: file, key: "launches[\(index)].name",
                    message: "'\(launch.name)' is the name of launches[\(first)] too; give each launch its own")
            }
            launches.append(launch)
        }
        return launches
    }

    func launch(_ value: JSONValue, _ key: String) throws(ConfigError) -> DeclaredLaunch {
        let fields = try reader.object(value, key)
        try reader.onlyKnown(fields, Self.launchKeys, key)
        let name = try reader.string(fields["name"], key + ".name")
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
            throw ConfigError(
                file: file, key: key + ".name",
                message: "expected letters, digits, '-', '_' or '.', found '\(name)'")
        }
        var launch = DeclaredLaunch(name: name, run: try run(fields["run"], key + ".run"))
        if let until = fields["until"] { launch.until = try self.until(until, key + ".until") }
        if let value = fields["temperature"] { launch.temperatures = try temperatures(value, key + ".temperature") }
        if let value = fields["env"] {
            for (variable, text) in try reader.object(value, key + ".env") {
                guard !variable.isEmpty, !variable.contains("=") else {
                    throw ConfigError(
                        file: file, key: "\(key).env", message: "'\(variable)' is no variable name")
                }
                launch.environment[variable] = try reader.string(text, "\(key).env.\(variable)")
            }
        }
        if let value = fields["stdin"] { launch.stdin = try path(value, key + ".stdin") }
        if let value = fields["cwd"] { launch.workingDirectory = try path(value, key + ".cwd") }
        if let value = fields["timeout"] {
            launch.timeoutSeconds = try reader.number(value, key + ".timeout", in: Self.timeoutSeconds)
        }
        if let value = fields["budgets"] {
            let budgets = try reader.object(value, key + ".budgets")
            try reader.onlyKnown(budgets, ["maxMedianMs"], key + ".budgets")
            if let value = budgets["maxMedianMs"] {
                let milestones = try reader.object(value, key + ".budgets.maxMedianMs")
                try reader.onlyKnown(
                    milestones, Milestone.allCases.map(\.rawValue), key + ".budgets.maxMedianMs")
                for (milestoneName, number) in milestones {
                    guard let milestone = Milestone(rawValue: milestoneName) else { continue }
                    launch.budgets[milestone] = try reader.number(
                        number, "\(key).budgets.maxMedianMs.\(milestoneName)", minimum: 0)
                }
            }
        }
        return launch
    }

    /// `run`: the program, then its arguments; the program may not be empty.
    func run(_ value: JSONValue?, _ key: String) throws(ConfigError) -> [String] {
        guard case .array(let items)? = value else {
            throw reader.fail(key, "an array: the program, then its arguments", value)
        }
        let words = try items.enumerated().map { (i, item) throws(ConfigError) in
            try reader.string(item, "\(key)[\(i)]")
        }
        guard let program = words.first, !program.isEmpty else {
            throw ConfigError(
                file: file, key: key + (words.isEmpty ? "" : "[0]"),
                message: "missing the program; give it first, then its arguments")
        }
        return words
    }

    func until(_ value: JSONValue, _ key: String) throws(ConfigError) -> LaunchEnd {
        let expected = "main, first-output, exit, {\"ready\": PATTERN} or {\"function\": NAME}"
        switch value {
        case .string("main"): return .main
        case .string("first-output"): return .firstOutput
        case .string("exit"): return .exit
        case .string(let word):
            throw ConfigError(file: file, key: key, message: "expected \(expected), found '\(word)'")
        case .object(let fields):
            if fields["mark"] != nil {
                throw ConfigError(
                    file: file, key: key + ".mark",
                    message:
                        "marks (premain_mark) are seen by the field recorder only; in the lab end at {\"ready\": PATTERN} or {\"function\": NAME}"
                )
            }
            try reader.onlyKnown(fields, Self.untilKeys, key)
            guard fields.count == 1, let (name, text) = fields.first else {
                throw ConfigError(
                    file: file, key: key, message: "expected one of ready or function, found \(fields.count)")
            }
            let argument = try reader.string(text, "\(key).\(name)")
            guard !argument.isEmpty else {
                throw ConfigError(file: file, key: "\(key).\(name)", message: "expected a non-empty string")
            }
            return name == "ready" ? .ready(argument) : .function(argument)
        default:
            throw reader.fail(key, expected, value)
        }
    }

    func temperatures(_ value: JSONValue, _ key: String) throws(ConfigError) -> [LaunchTemperature] {
        let names = LaunchTemperature.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .array(let items) = value, !items.isEmpty else {
            throw reader.fail(key, "a non-empty array of \(names)", value)
        }
        var temperatures: [LaunchTemperature] = []
        for (index, item) in items.enumerated() {
            let word = try reader.string(item, "\(key)[\(index)]")
            guard let temperature = LaunchTemperature(rawValue: word) else {
                throw ConfigError(
                    file: file, key: "\(key)[\(index)]", message: "expected one of \(names), found '\(word)'")
            }
            guard !temperatures.contains(temperature) else {
                throw ConfigError(file: file, key: "\(key)[\(index)]", message: "'\(word)' is given twice")
            }
            temperatures.append(temperature)
        }
        return temperatures
    }

    func path(_ value: JSONValue, _ key: String) throws(ConfigError) -> String {
        let text = try reader.string(value, key)
        guard !text.isEmpty, !text.utf8.contains(0) else {
            throw ConfigError(file: file, key: key, message: "expected a path, found ''")
        }
        return text
    }
}
