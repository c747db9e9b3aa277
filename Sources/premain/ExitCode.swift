/// premain's exit codes; `premain --help` lists them from `summary`, README.md ("Exit codes")
/// repeats that list.
enum ExitCode: Int32, CaseIterable {
    /// Everything worked and nothing failed a gate.
    case success = 0
    /// Findings at or above `--fail-on`, or a budget in premain.json exceeded.
    case findings = 1
    /// `diff`: a measured regression that is statistically significant and large enough.
    case regression = 2
    /// An input file is missing, unreadable, not ELF, or damaged (reported on stderr).
    case inputError = 3
    /// `measure`/`trace`: the target failed (non-zero exit, signal, timeout, missing library).
    case targetFailed = 4
    /// `compare`: the runs were too noisy, or too few, to decide; or a wall-time change no
    /// other signal backs.
    case inconclusive = 5
    /// A usage error: unknown option, bad value, missing argument.
    case usage = 64
    /// premain itself failed (an internal error, or output could not be written).
    case internalError = 70

    /// What the code means, for the EXIT CODES list of `premain --help`.
    var summary: String {
        switch self {
        case .success: return "success"
        case .findings: return "findings at or above \(ConfigOptions.failOn) or a budget exceeded"
        case .regression: return "measured regression"
        case .inputError: return "an input file is missing, unreadable, not ELF or damaged"
        case .targetFailed: return "the measured target failed"
        case .inconclusive: return "compare was inconclusive"
        case .usage: return "usage error"
        case .internalError: return "internal error"
        }
    }

    /// One line per code: `  0 success`, `  64 usage error`.
    static var list: String {
        allCases.map { "  \($0.rawValue) \($0.summary)" }.joined(separator: "\n")
    }
}
