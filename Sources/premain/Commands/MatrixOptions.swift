import PremainJudge
import PremainLaunch
import PremainModel

/// `--launch NAME` and the launch matrix of premain.json (`launches`), shared by `measure`,
/// `compare` and `pr`: which rows a command runs, each checked before anything is built or
/// launched.
enum MatrixOptions {
    static let launch = Option<[String]>.repeating(
        "--launch", value: "name",
        help:
            "Run this launch of premain.json's launches (all its temperatures); repeatable. Default: every declared launch, unless a command is given after '--'"
    )

    /// The rows to run: `nil` for the command line's one unnamed launch (`commandLine` given,
    /// or no launches declared and no `--launch`), else the declared launches' rows (those
    /// `--launch` names). Options that a declared launch sets itself (`perLaunch`: `--until`,
    /// `--ready`, `--cold`) are refused with the matrix. Usage errors: a broken premain.json
    /// (naming the key), `--launch` with a command, an unknown name, a `ready` pattern premain
    /// cannot match, or nothing to run (`missing`; `nil`: the command line's launch, with no
    /// arguments).
    static func rows(
        _ arguments: ParsedArguments, commandLine: [String], perLaunch: [any DeclaredOption] = [],
        missing: String? = "missing expected argument '<command>' after '--', and premain.json declares no launches"
    ) throws(UsageError) -> [PlannedRow]? {
        let names = arguments[launch]
        if !commandLine.isEmpty {
            guard names.isEmpty else {
                throw UsageError(message: "\(launch) picks premain.json's launches; drop the command after '--'")
            }
            return nil
        }
        let declared = try ConfigOptions.load(arguments).launches
        guard !declared.isEmpty || !names.isEmpty else {
            guard let missing else { return nil }
            throw UsageError(message: missing)
        }
        if let given = perLaunch.first(where: { arguments.has($0) }) {
            throw UsageError(
                message:
                    "\(given.spec.name) applies to a command after '--'; premain.json's launches set it per launch (until, temperature)"
            )
        }
        let rows: [LaunchRow]
        do {
            rows = try declared.rows(named: names)
        } catch {
            throw UsageError(message: error.description)
        }
        var planned: [PlannedRow] = []
        for row in rows {
            do {
                planned.append(try PlannedRow(row))
            } catch {
                throw UsageError(message: "launch '\(row.launch.name)': invalid ready pattern: \(error.message)")
            }
        }
        return planned
    }
}
