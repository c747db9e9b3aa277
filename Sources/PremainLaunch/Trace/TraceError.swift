import PremainAudit
import PremainModel

/// Why a traced launch could not start.
public enum TraceError: Error, CustomStringConvertible, Sendable {
    case cannotStart(String, String)
    case notStoppedAtExec(String)
    case ptrace(String)
    case noCalibrationTarget(String)

    public var description: String {
        switch self {
        case .cannotStart(let path, let reason): return "cannot start \(path): \(reason)"
        case .notStoppedAtExec(let path): return "\(path) did not stop at exec (is ptrace allowed?)"
        case .ptrace(let message): return message
        case .noCalibrationTarget(let message): return "cannot measure the tracer's bias: \(message)"
        }
    }
}
