import PremainAudit
import PremainModel
import PremainSystem

/// Reads premain.json by hand, so every mistake names its key and unknown keys are errors
/// (a misspelt budget would otherwise be ignored silently).
public enum ConfigParser {
    static let topKeys = [
        "rules", "budgets", "allowlist", "diff", "compare", "launches", "failOn", "$schema", "comment",
    ]
    static let budgetKeys = [
        "maxInitializersPerObject", "maxClosureObjects", "maxMedianMsToMain", "maxMedianMsToFirstOutput",
        "maxMsPerFunction", "maxMsPerFunctionKind", "functions",
    ]
    static let diffKeys = ["alpha", "minEffectMs", "minEffectPercent", "bootstrapResamples", "seed"]
    static let compareKeys = [
        "thresholdMs", "thresholdPercent", "instructionThresholdPercent", "confidence", "minRuns",
        "maxRuns", "maxSeconds", "seed",
    ]
    static let allowKeys = ["object", "count", "symbols", "reason"]
    /// Upper bounds of values that size work or memory (a bootstrap of 10^12 resamples would
    /// allocate terabytes); compare's are `CompareSettings.Bounds`, which the command line shares.
    static let maxBootstrapResamples = 100_000

    /// Parses `text`, the content of `file` (the name is used in errors only).
    public static func parse(_ text: String, file: String = "premain.json") throws(ConfigError) -> PremainConfig {
        let document: JSONValue
        do {
            document = try JSONValue.parseStrict(text)
        } catch {
            throw ConfigError(file: file, key: error.key, message: error.message)
        }
        let reader = Reader(file: file)
        let top = try reader.object(document, "")
        try reader.onlyKnown(top, topKeys, "")
        var config = PremainConfig()
        if let value = top["failOn"] {
            if value == .string("never") {
                config.failNever = true
            } else {
                config.failOn = try reader.severity(value, "failOn", orNever: true)
            }
        }
        if let value = top["rules"] { config.rules = try rules(value, reader) }
        if let value = top["budgets"] { config.budgets = try budgets(value, reader) }
        if let value = top["allowlist"] { config.allowlist = try allowlist(value, reader) }
        if let value = top["diff"] { config.diff = try diffSettings(value, reader) }
        if let value = top["compare"] { config.compare = try compareSettings(value, reader) }
        if let value = top["launches"] { config.launches = try LaunchesParser(reader: reader).launches(value) }
        return config
    }

    /// premain.json's `rules`: per rule identifier, enabled, severity and its numbers.
    static func rules(_ value: JSONValue, _ reader: Reader) throws(ConfigError) -> [String: PremainConfig.RuleOverride]
    {
        let file = reader.file
        var rules: [String: PremainConfig.RuleOverride] = [:]
        let known = Dictionary(uniqueKeysWithValues: allRules.map { ($0.description.identifier, $0.description) })
        for (identifier, entry) in try reader.object(value, "rules") {
            let key = "rules.\(identifier)"
            guard let description = known[identifier] else {
                throw ConfigError(file: file, key: key, message: "unknown rule; 'premain rules' lists the rules")
            }
            let fields = try reader.object(entry, key)
            try reader.onlyKnown(fields, ["enabled", "severity"] + description.defaults.keys.sorted(), key)
            var override = PremainConfig.RuleOverride()
            if let flag = fields["enabled"] { override.enabled = try reader.bool(flag, key + ".enabled") }
            if let level = fields["severity"] { override.severity = try reader.severity(level, key + ".severity") }
            for name in description.defaults.keys {
                if let number = fields[name] {
                    override.values[name] = try reader.number(number, "\(key).\(name)", minimum: 0)
                }
            }
            rules[identifier] = override
        }
        return rules
    }

    /// premain.json's `budgets`.
    static func budgets(_ value: JSONValue, _ reader: Reader) throws(ConfigError) -> PremainConfig.Budgets {
        let file = reader.file
        let fields = try reader.object(value, "budgets")
        try reader.onlyKnown(fields, budgetKeys, "budgets")
        var budgets = PremainConfig.Budgets()
        if let number = fields["maxInitializersPerObject"] {
            budgets.maxInitializersPerObject = try reader.whole(number, "budgets.maxInitializersPerObject")
        }
        if let number = fields["maxClosureObjects"] {
            budgets.maxClosureObjects = try reader.whole(number, "budgets.maxClosureObjects")
        }
        if let number = fields["maxMedianMsToMain"] {
            budgets.maxMedianMsToMain = try reader.number(number, "budgets.maxMedianMsToMain", minimum: 0)
        }
        if let number = fields["maxMedianMsToFirstOutput"] {
            budgets.maxMedianMsToFirstOutput = try reader.number(
                number, "budgets.maxMedianMsToFirstOutput", minimum: 0)
        }
        if let number = fields["maxMsPerFunction"] {
            budgets.maxMsPerFunction = try reader.number(number, "budgets.maxMsPerFunction", minimum: 0)
        }
        if let value = fields["maxMsPerFunctionKind"] {
            let kinds = try reader.object(value, "budgets.maxMsPerFunctionKind")
            let known = TracedFunctionKind.allCases.filter { $0 != .named }.map(\.rawValue)
            try reader.onlyKnown(kinds, known, "budgets.maxMsPerFunctionKind")
            for (name, number) in kinds {
                guard let kind = TracedFunctionKind(rawValue: name) else { continue }
                budgets.maxMsPerFunctionKind[kind] = try reader.number(
                    number, "budgets.maxMsPerFunctionKind.\(name)", minimum: 0)
            }
        }
        if let value = fields["functions"] {
            guard case .array(let entries) = value else {
                throw ConfigError(
                    file: file, key: "budgets.functions",
                    message: "expected an array of {name, maxMs}, found \(value.kindName)")
            }
            for (index, entry) in entries.enumerated() {
                let key = "budgets.functions[\(index)]"
                let fields = try reader.object(entry, key)
                try reader.onlyKnown(fields, ["name", "maxMs"], key)
                let name = try reader.string(fields["name"], key + ".name")
                guard let number = fields["maxMs"] else {
                    throw ConfigError(file: file, key: key + ".maxMs", message: "missing; give the limit in ms")
                }
                budgets.functions.append(
                    .init(name: name, maxMs: try reader.number(number, key + ".maxMs", minimum: 0)))
            }
        }
        return budgets
    }

    /// premain.json's `allowlist`: each object's accepted initializers and why.
    static func allowlist(_ value: JSONValue, _ reader: Reader) throws(ConfigError) -> [PremainConfig
        .AllowedInitializers]
    {
        let file = reader.file
        var allowlist: [PremainConfig.AllowedInitializers] = []
        guard case .array(let entries) = value else {
            throw ConfigError(
                file: file, key: "allowlist",
                message: "expected an array of {object, count, reason}, found \(value.kindName)")
        }
        for (index, entry) in entries.enumerated() {
            let key = "allowlist[\(index)]"
            let fields = try reader.object(entry, key)
            try reader.onlyKnown(fields, allowKeys, key)
            let object = try reader.string(fields["object"], key + ".object")
            let count = try reader.whole(fields["count"], key + ".count")
            let reason = try reader.string(fields["reason"], key + ".reason")
            guard !reason.allSatisfy(\.isWhitespace) else {
                throw ConfigError(
                    file: file, key: key + ".reason", message: "say why these initializers are accepted")
            }
            var symbols: [String]?
            if let list = fields["symbols"] {
                guard case .array(let items) = list else {
                    throw ConfigError(
                        file: file, key: key + ".symbols",
                        message: "expected an array of strings, found \(list.kindName)")
                }
                symbols = try items.enumerated().map { (i, item) throws(ConfigError) in
                    try reader.string(item, "\(key).symbols[\(i)]")
                }
            }
            allowlist.append(.init(object: object, count: count, symbols: symbols, reason: reason))
        }
        return allowlist
    }

    /// premain.json's `diff` section over the defaults.
    static func diffSettings(_ value: JSONValue, _ reader: Reader) throws(ConfigError) -> DiffSettings {
        let file = reader.file
        var settings = DiffSettings()
        let fields = try reader.object(value, "diff")
        try reader.onlyKnown(fields, diffKeys, "diff")
        if let number = fields["alpha"] {
            let alpha = try reader.number(number, "diff.alpha", minimum: 0)
            guard alpha > 0, alpha < 1 else {
                throw ConfigError(
                    file: file, key: "diff.alpha", message: "expected a number between 0 and 1, found \(alpha)")
            }
            settings.alpha = alpha
        }
        if let number = fields["minEffectMs"] {
            settings.minEffectMs = try reader.number(number, "diff.minEffectMs", minimum: 0)
        }
        if let number = fields["minEffectPercent"] {
            settings.minEffectPercent = try reader.number(number, "diff.minEffectPercent", minimum: 0)
        }
        if let number = fields["bootstrapResamples"] {
            settings.bootstrapResamples = max(
                100,
                try reader.whole(
                    number, "diff.bootstrapResamples",
                    maximum: ConfigParser.maxBootstrapResamples))
        }
        if let number = fields["seed"] { settings.seed = UInt64(try reader.whole(number, "diff.seed")) }
        return settings
    }

    /// premain.json's `compare` section over the defaults.
    static func compareSettings(_ value: JSONValue, _ reader: Reader) throws(ConfigError) -> CompareSettings {
        let fields = try reader.object(value, "compare")
        try reader.onlyKnown(fields, compareKeys, "compare")
        var settings = CompareSettings()
        typealias Bounds = CompareSettings.Bounds
        if let number = fields["thresholdMs"] {
            settings.thresholdMs = try reader.number(number, "compare.thresholdMs", in: Bounds.thresholdMs)
        }
        if let number = fields["thresholdPercent"] {
            settings.thresholdPercent = try reader.number(
                number, "compare.thresholdPercent", in: Bounds.thresholdPercent)
        }
        if let number = fields["instructionThresholdPercent"] {
            settings.instructionThresholdPercent = try reader.number(
                number, "compare.instructionThresholdPercent", in: Bounds.instructionThresholdPercent)
        }
        if let number = fields["confidence"] {
            settings.confidence = try reader.number(number, "compare.confidence", in: Bounds.confidence)
        }
        if let number = fields["minRuns"] {
            settings.minRuns = try reader.whole(number, "compare.minRuns", in: Bounds.minRuns)
        }
        if let number = fields["maxRuns"] {
            settings.maxRuns = try reader.whole(number, "compare.maxRuns", in: Bounds.maxRuns)
        }
        if settings.maxRuns < settings.minRuns {
            throw ConfigError(
                file: reader.file, key: "compare.maxRuns", message: "is below compare.minRuns (\(settings.minRuns))")
        }
        if let number = fields["maxSeconds"] {
            settings.maxSeconds = try reader.number(number, "compare.maxSeconds", in: Bounds.maxSeconds)
        }
        if let number = fields["seed"] { settings.seed = UInt64(try reader.whole(number, "compare.seed")) }
        return settings
    }

    struct Reader {
        var file: String

        func fail(_ key: String, _ expected: String, _ value: JSONValue?) -> ConfigError {
            ConfigError(
                file: file, key: key,
                message: value.map { "expected \(expected), found \($0.kindName)" } ?? "missing; expected \(expected)")
        }

        func object(_ value: JSONValue, _ key: String) throws(ConfigError) -> [String: JSONValue] {
            guard case .object(let fields) = value else { throw fail(key, "an object", value) }
            return fields
        }

        func onlyKnown(_ fields: [String: JSONValue], _ known: [String], _ key: String) throws(ConfigError) {
            for name in fields.keys.sorted() where !known.contains(name) {
                let prefix = key.isEmpty ? "" : key + "."
                throw ConfigError(
                    file: file, key: prefix + name,
                    message:
                        "unknown key; expected one of \(known.filter { !$0.hasPrefix("$") }.joined(separator: ", "))")
            }
        }

        func number(_ value: JSONValue, _ key: String, minimum: Double) throws(ConfigError) -> Double {
            guard case .number(let number) = value, number.isFinite else { throw fail(key, "a number", value) }
            guard number >= minimum else {
                throw ConfigError(
                    file: file, key: key,
                    message:
                        "expected a number of at least \(Milliseconds.number(minimum, decimals: 0)), found \(number)")
            }
            return number
        }

        /// A number within `range` (a bound of the setting declared once, `CompareSettings.Bounds`).
        func number(_ value: JSONValue, _ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double {
            guard case .number(let number) = value, number.isFinite else { throw fail(key, "a number", value) }
            guard range.contains(number) else {
                throw ConfigError(
                    file: file, key: key,
                    message:
                        "expected a number from \(JSONValue.number(range.lowerBound).displayText) to \(JSONValue.number(range.upperBound).displayText), found \(JSONValue.number(number).displayText)"
                )
            }
            return number
        }

        /// A whole number within `range`.
        func whole(_ value: JSONValue?, _ key: String, in range: ClosedRange<Int>) throws(ConfigError) -> Int {
            let number = try whole(value, key, maximum: range.upperBound)
            guard number >= range.lowerBound else {
                throw ConfigError(
                    file: file, key: key,
                    message: "expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(number)")
            }
            return number
        }

        func whole(_ value: JSONValue?, _ key: String, maximum: Int = 999_999_999_999) throws(ConfigError) -> Int {
            guard case .number(let number)? = value, number == number.rounded(), number >= 0 else {
                throw fail(key, "a whole number of at least 0", value)
            }
            guard number <= Double(maximum) else {
                throw ConfigError(
                    file: file, key: key,
                    message:
                        "expected a whole number from 0 to \(maximum), found \(JSONValue.number(number).displayText)")
            }
            return Int(number)
        }

        func bool(_ value: JSONValue, _ key: String) throws(ConfigError) -> Bool {
            guard case .bool(let flag) = value else { throw fail(key, "true or false", value) }
            return flag
        }

        func string(_ value: JSONValue?, _ key: String) throws(ConfigError) -> String {
            guard case .string(let text)? = value else { throw fail(key, "a string", value) }
            return text
        }

        func severity(_ value: JSONValue, _ key: String, orNever: Bool = false) throws(ConfigError) -> Severity {
            let names = (Severity.allCases.map(\.rawValue) + (orNever ? ["never"] : [])).joined(separator: ", ")
            guard case .string(let text) = value else { throw fail(key, "one of \(names)", value) }
            guard let severity = Severity(rawValue: text) else {
                throw ConfigError(file: file, key: key, message: "expected one of \(names), found '\(text)'")
            }
            return severity
        }
    }
}

extension ConfigParser {
    /// Reads and parses the config file at `path`.
    public static func load(path: String) throws(ConfigError) -> PremainConfig {
        guard let bytes = LocalFiles.read(path, limit: 16 << 20) else {
            throw ConfigError(file: path, key: "", message: "cannot read the file")
        }
        return try parse(String(decoding: bytes, as: UTF8.self), file: path)
    }

    /// `premain.json` in `folder` or the nearest parent folder that has one; `nil` when none.
    public static func find(from folder: String) -> String? {
        var current = folder
        while true {
            let candidate = (current.hasSuffix("/") ? current : current + "/") + "premain.json"
            if LocalFiles.kind(candidate) == .file { return candidate }
            guard let slash = current.dropLast().lastIndex(of: "/"), current != "/" else { return nil }
            current = slash == current.startIndex ? "/" : String(current[..<slash])
        }
    }
}

/// A mistake in premain.json, naming the key: `premain.json: budgets.maxClosureObjects:
/// expected a whole number, found a string`.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    /// The file the config came from.
    public var file: String
    /// Dotted path of the key (`rules.heavy_static_initializer.thresholdMs`); "" for the
    /// document itself.
    public var key: String
    /// Lowercase, no trailing period.
    public var message: String

    public init(file: String, key: String, message: String) {
        self.file = file
        self.key = key
        self.message = message
    }

    public var description: String {
        key.isEmpty ? "\(file): \(message)" : "\(file): \(key): \(message)"
    }
}
