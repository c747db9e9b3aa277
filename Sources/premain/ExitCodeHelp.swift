import PremainModel

extension ExitCode {
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
        case .environmentError: return "a library premain needs cannot be used (libsqlite3 for history)"
        case .internalError: return "internal error"
        }
    }

    /// One line per code: `  0 success`, `  64 usage error`.
    static var list: String {
        allCases.map { "  \($0.rawValue) \($0.summary)" }.joined(separator: "\n")
    }
}
