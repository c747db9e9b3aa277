/// A usage mistake: printed as `Error: …`, the usage line and a pointer to `--help`; exit 64.
struct UsageError: Error {
    var message: String
}

/// The parsed command line of one command. Options are read through their declarations:
/// `arguments[MeasureCommand.runs]`, never by a name written again.
struct ParsedArguments {
    /// The words given for each option, by canonical name; `[]` for a flag that is there.
    fileprivate(set) var values: [String: [String]] = [:]
    /// The positional arguments, after the action word of a command that has actions.
    var positionals: [String] = []
    /// The action word that chose the form (`add` of `history add`), for commands with actions.
    var action: String?
    /// Words after `--`, for commands that run another command.
    var passthrough: [String] = []
    var wantsHelp = false

    /// The option's value, or its default when it is not given.
    subscript<Value>(_ option: Option<Value>) -> Value {
        values[option.spec.name].map(option.read) ?? option.defaultValue
    }

    /// The option's value, or `fallback` when it is not given (a default from premain.json).
    subscript<Value>(_ option: Option<Value>, default fallback: Value) -> Value {
        values[option.spec.name].map(option.read) ?? fallback
    }

    /// Whether the option is on the command line.
    func has(_ option: some DeclaredOption) -> Bool { values[option.spec.name] != nil }
}

/// Parses arguments against a `CommandSpec`: `--name value`, `--name=value`, `-n value`,
/// flags, positionals, and `--` for a command to run. Every value is checked against its
/// declaration (range, choices) here, so commands read values that are good.
enum ArgumentParser {
    static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if word == "--" {
                guard spec.acceptsPassthrough else {
                    parsed.positionals += arguments[index...]
                    break
                }
                parsed.passthrough = Array(arguments[index...])
                break
            }
            guard word.hasPrefix("-"), word != "-" else {
                parsed.positionals.append(word)
                continue
            }
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            guard let option = spec.option(named: name) else {
                throw UsageError(
                    message: NearestName.message(
                        "unknown option '\(name)'", for: name, among: spec.allOptions.map(\.name)))
            }
            if option.name == CommandSpec.help.spec.name {
                parsed.wantsHelp = true
                continue
            }
            if option.isFlag {
                guard inlineValue == nil else { throw UsageError(message: "\(name) takes no value") }
                parsed.values[option.name] = []
                continue
            }
            var words: [String] = []
            for _ in option.valueNames {
                if let given = inlineValue {
                    words.append(given)
                    inlineValue = nil
                    continue
                }
                guard index < arguments.count else {
                    let shape = name + option.valueNames.map { " <\($0)>" }.joined()
                    throw UsageError(
                        message: option.valueNames.count > 1
                            ? "\(name) takes \(option.valueNames.count) values: \(shape)"
                            : "missing value for '\(shape)'")
                }
                words.append(arguments[index])
                index += 1
            }
            if !option.repeatable, parsed.values[option.name] != nil {
                throw UsageError(message: "\(name) given more than once")
            }
            for value in words {
                if let problem = option.problem(with: value) { throw UsageError(message: problem) }
            }
            parsed.values[option.name, default: []] += words
        }
        for group in spec.exclusive {
            let given = group.filter { parsed.has($0) }
            if given.count > 1 {
                throw UsageError(message: given.map(\.description).joined(separator: " and ") + " exclude each other")
            }
        }
        if !parsed.wantsHelp { try spec.checkForm(&parsed) }
        return parsed
    }
}
