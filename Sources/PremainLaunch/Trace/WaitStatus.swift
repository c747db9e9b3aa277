import PremainAudit
import PremainModel

#if canImport(Glibc)
import Glibc
#endif

/// A waitpid(2) status, decoded without the C macros (which Swift cannot import).
enum WaitStatus: Equatable {
    /// Exited normally with this code.
    case exited(Int32)
    /// Killed by this signal.
    case signaled(Int32)
    /// Stopped with this signal; `event` is the PTRACE_EVENT_* number (0 for none).
    case stopped(signal: Int32, event: Int32)
    /// Anything else (continued).
    case other

    static let eventFork: Int32 = 1
    static let eventVFork: Int32 = 2
    static let eventClone: Int32 = 3
    static let eventExec: Int32 = 4
    static let eventVForkDone: Int32 = 5

    init(_ raw: Int32) {
        let low = raw & 0x7f
        if low == 0 {
            self = .exited((raw >> 8) & 0xff)
        } else if raw & 0xff == 0x7f {
            self = .stopped(signal: (raw >> 8) & 0xff, event: (raw >> 16) & 0xffff)
        } else if low != 0x7f {
            self = .signaled(low)
        } else {
            self = .other
        }
    }

    var isTermination: Bool {
        switch self {
        case .exited, .signaled: return true
        default: return false
        }
    }
}

/// waitpid(2) with `__WALL`, retried on EINTR. Returns `nil` when there is nothing to wait for.
func waitForThread(_ pid: pid_t, noHang: Bool = false) -> (pid: pid_t, status: WaitStatus)? {
    var raw: Int32 = 0
    let wall: Int32 = 0x4000_0000
    while true {
        let result = waitpid(pid, &raw, wall | (noHang ? WNOHANG : 0))
        if result > 0 { return (result, WaitStatus(raw)) }
        if result == 0 { return nil }
        if errno == EINTR { continue }
        return nil
    }
}
