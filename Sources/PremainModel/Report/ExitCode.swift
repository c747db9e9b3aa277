/// premain's exit codes, the one list: `premain --help` lists them (its `summary` lines, in the
/// CLI), README.md's "Exit codes" table is `markdownTable` (a test compares them), and each
/// verdict knows its own (`VerdictStatus.exitCode`).
public enum ExitCode: Int32, CaseIterable, Sendable, CustomStringConvertible {
    /// Everything worked and nothing failed a gate.
    case success = 0
    /// Findings at or above `--fail-on`, or a budget in premain.json exceeded.
    case findings = 1
    /// `compare`/`pr`/`diff`: a measured regression that something deterministic backs.
    case regression = 2
    /// An input file is missing, unreadable, not ELF, or damaged (reported on stderr).
    case inputError = 3
    /// `measure`/`trace`/`compare`/`pr`: the target failed (non-zero exit, signal, timeout,
    /// missing library).
    case targetFailed = 4
    /// `compare`/`pr`: the runs were too noisy, or too few, to decide; or a wall-time change no
    /// other signal backs.
    case inconclusive = 5
    /// A usage error: unknown option, bad value, missing argument.
    case usage = 64
    /// A library premain loads only when a command needs it cannot be used (`history` without a
    /// usable libsqlite3.so.0): `EX_UNAVAILABLE`.
    case environmentError = 69
    /// premain itself failed (an internal error, or an output file could not be written; the
    /// others were, and the one that failed is as it was).
    case internalError = 70

    /// The number, as help text quotes it: "2".
    public var description: String { "\(rawValue)" }

    /// What the code means, as README.md's table says it (Markdown).
    public var documentation: String {
        switch self {
        case .success: return "success"
        case .findings:
            return
                "`check`/`diff`/`pr`: findings at or above `--fail-on` (default `error`; for `diff` and `pr` only new ones), or a budget exceeded"
        case .regression:
            return
                "`compare`/`pr`: a regression (interval wholly above the threshold, backed by a deterministic change); `field compare`: a percentile's interval wholly above the threshold; `diff`: a measured regression backed by a static change; wins over 1"
        case .inputError:
            return
                "an input file is missing, unreadable, not ELF, or damaged (one `Error: <path>: …` line each); the other files are still reported"
        case .targetFailed:
            return
                "`measure`/`trace`/`compare`/`pr`: the target failed (non-zero exit, signal, timeout, missing library); `pr`: a commit could not be built"
        case .inconclusive:
            return
                "`compare`/`pr`/`field compare`: inconclusive (undecided within the run budget, noise suspected, or too few launches); `pr`: also not measured (no `--run`)"
        case .usage:
            return
                "usage error: `Error: …` (with \"did you mean 'audit'?\" for a mistyped subcommand, action, option or choice; a missing or stray argument, or an option that goes with another form such as `history show --commit`), the usage line wrapped to the terminal, and where to find help"
        case .environmentError:
            return
                "`history`: libsqlite3.so.0 cannot be loaded or is not SQLite 3 (one `Error:` line naming it; `pr --history-db` goes on without the trend)"
        case .internalError:
            return
                "internal error, or an output could not be written (one `Error:` line each; the other outputs are written, and a file that failed is left as it was)"
        }
    }

    /// README.md's "Exit codes" table: `| code | meaning |`, one row per code.
    public static var markdownTable: String {
        (["| code | meaning |", "| --- | --- |"] + allCases.map { "| \($0.rawValue) | \($0.documentation) |" })
            .joined(separator: "\n")
    }
}
