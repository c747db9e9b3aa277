import PremainJudge
import PremainModel

/// The options shared by `rules`, `check`, `diff`, `compare` and `pr`: where premain.json is,
/// and the severity that fails.
enum ConfigOptions {
    static let config = Option<String?>(
        "--config", short: "-c", value: "path", kind: .path(.file),
        help:
            "premain.json to use (default: premain.json in the current folder or its nearest parent that has one; none: defaults)"
    )
    static let noConfig = Option.flag("--no-config", help: "Ignore premain.json: rule defaults, no budgets")

    /// A word of `--fail-on`: a severity, or `never` (`severity == nil`).
    struct FailOn: OptionChoice {
        var severity: Severity?

        static let allCases = Severity.allCases.map { FailOn(severity: $0) } + [FailOn(severity: nil)]
        var rawValue: String { severity?.rawValue ?? "never" }
        init(severity: Severity?) { self.severity = severity }
        init?(rawValue: String) {
            guard let found = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = found
        }
        var note: String? { severity == .error ? "default: failOn in premain.json, else error" : nil }
    }

    static let failOn = Option<FailOn?>.choice(
        "--fail-on", value: "severity", help: "Fail (exit \(ExitCode.findings)) on findings at or above this severity")

    /// The config: `--config`, else the nearest premain.json, else the defaults. A broken
    /// config is a usage error naming the key.
    static func load(_ arguments: ParsedArguments) throws(UsageError) -> PremainConfig {
        guard let path = file(arguments) else { return PremainConfig() }
        do {
            return try ConfigParser.load(path: path)
        } catch {
            throw UsageError(message: error.description)
        }
    }

    /// The premain.json `load` reads: `--config`, else the nearest one; `nil` with
    /// `--no-config` or none found. An input no output may replace.
    static func file(_ arguments: ParsedArguments) -> String? {
        if arguments[noConfig] { return nil }
        return arguments[config] ?? ProcessEnvironment.currentDirectory().flatMap(ConfigParser.find(from:))
    }

    /// `--fail-on`, else the config's (`failOn`, which may be `never` too), else `error`; `nil`
    /// for `never`.
    static func failOn(_ arguments: ParsedArguments, _ config: PremainConfig) -> Severity? {
        guard let given = arguments[failOn] else { return config.failNever ? nil : config.failOn ?? .error }
        return given.severity
    }
}
