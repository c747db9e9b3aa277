/// A usage mistake: printed as `Error: …`, the usage line and a pointer to `--help`; exit 64.
struct UsageError: Error {
    var message: String
}

/// The parsed command line of one command.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []
    /// Words after `--`, for commands that run another command.
    var passthrough: [String] = []
    var wantsHelp = false

    func flag(_ key: String) -> Bool { flags.contains(key) }
    func value(_ key: String) -> String? { values[key]?.last }
    func all(_ key: String) -> [String] { values[key] ?? [] }

    /// An integer option in `range`, or `fallback` when absent.
    func integer(_ key: String, default fallback: Int, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = value(key) else { return fallback }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "\(key) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// A number option in `range`, or `fallback` when absent.
    func number(_ key: String, default fallback: Double, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let text = value(key) else { return fallback }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError(message: "\(key) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// An option restricted to `choices`, or `fallback` when absent.
    func choice(_ key: String, _ choices: [String], default fallback: String) throws(UsageError) -> String {
        guard let text = value(key) else { return fallback }
        guard choices.contains(text) else {
            throw UsageError(message: "\(key) must be one of \(choices.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }
}

/// Parses arguments against a `CommandSpec`: `--name value`, `--name=value`, `-n value`,
/// flags, positionals, and `--` for a command to run.
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
                throw UsageError(message: "unknown option '\(name)'")
            }
            if option.key == "--help" {
                parsed.wantsHelp = true
                continue
            }
            if option.isFlag {
                guard inlineValue == nil else { throw UsageError(message: "\(name) takes no value") }
                parsed.flags.insert(option.key)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(message: "missing value for '\(name) <\(option.valueName ?? "value")>'")
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, parsed.values[option.key] != nil {
                throw UsageError(message: "\(name) given more than once")
            }
            parsed.values[option.key, default: []].append(value)
        }
        return parsed
    }
}
