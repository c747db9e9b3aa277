/// premain's exit codes; documented in README.md ("Exit codes") and `premain --help`.
enum ExitCode: Int32 {
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
}
