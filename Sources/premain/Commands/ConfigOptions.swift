import PremainJudge
import PremainModel

/// The options shared by `rules`, `check` and `diff`: where premain.json is, and the
/// severity that fails.
enum ConfigOptions {
    static let config = OptionSpec(names: ["-c", "--config"], valueName: "path",
                                   help: "premain.json to use (default: premain.json in the current folder or its nearest parent that has one; none: defaults).")
    static let noConfig = OptionSpec(names: ["--no-config"], valueName: nil, help: "Ignore premain.json: rule defaults, no budgets.")
    static let failOn = OptionSpec(names: ["--fail-on"], valueName: "severity",
                                   help: "Fail (exit 1) on findings at or above this severity: note, warning, error (default: failOn in premain.json, else error) or never.")

    /// The config: `--config`, else the nearest premain.json, else the defaults. A broken
    /// config is a usage error naming the key.
    static func load(_ arguments: ParsedArguments) throws(UsageError) -> PremainConfig {
        if arguments.flag("--no-config") { return PremainConfig() }
        let path: String?
        if let given = arguments.value("--config") {
            path = given
        } else {
            path = ProcessEnvironment.currentDirectory().flatMap(ConfigParser.find(from:))
        }
        guard let path else { return PremainConfig() }
        do {
            return try ConfigParser.load(path: path)
        } catch {
            throw UsageError(message: error.description)
        }
    }

    /// `--fail-on`, else the config's (`failOn`, which may be `never` too), else `error`; `nil`
    /// for `never`.
    static func failOn(_ arguments: ParsedArguments, _ config: PremainConfig) throws(UsageError) -> Severity? {
        guard let text = arguments.value("--fail-on") else { return config.failNever ? nil : config.failOn ?? .error }
        if text == "never" { return nil }
        guard let severity = Severity(rawValue: text) else {
            throw UsageError(message: "--fail-on must be one of note, warning, error, never, not '\(text)'")
        }
        return severity
    }
}
