import CTrace
import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

/// A failed ptrace(2) request: the request, the thread and errno.
public struct PtraceError: Error, CustomStringConvertible, Sendable {
    public var request: String
    public var pid: pid_t
    public var errno: Int32

    public var description: String {
        "ptrace(\(request)) on \(pid) failed: \(String(cString: strerror(errno)))"
    }
}

/// Typed ptrace(2) requests over `ctrace_ptrace`, with the request numbers every Linux
/// architecture shares; register access (x86-64 only) is in the extension below.
///
/// Every call acts on one stopped thread; errors come back as `PtraceError`, never as traps.
enum Ptrace {
    static let peekData: Int32 = 2
    static let pokeData: Int32 = 5
    static let cont: Int32 = 7
    static let singleStep: Int32 = 9
    static let setOptions: Int32 = 0x4200
    static let getEventMessage: Int32 = 0x4201
    static let getSignalInfo: Int32 = 0x4202

    static let optionTraceFork: UInt = 0x2
    static let optionTraceVFork: UInt = 0x4
    static let optionTraceClone: UInt = 0x8
    static let optionTraceExec: UInt = 0x10
    static let optionTraceVForkDone: UInt = 0x20
    static let optionExitKill: UInt = 0x100000

    /// The word at `address` (must be readable in the tracee).
    static func peek(_ pid: pid_t, _ address: UInt64) throws(PtraceError) -> UInt64 {
        let value = ctrace_ptrace(peekData, pid, UInt(address), 0)
        if value == -1, errno != 0 { throw PtraceError(request: "PEEKDATA", pid: pid, errno: errno) }
        return UInt64(bitPattern: Int64(value))
    }

    static func poke(_ pid: pid_t, _ address: UInt64, _ word: UInt64) throws(PtraceError) {
        try check(ctrace_ptrace(pokeData, pid, UInt(address), UInt(word)), "POKEDATA", pid)
    }

    /// Resumes the thread, delivering `signal` (0 for none).
    static func resume(_ pid: pid_t, signal: Int32 = 0) throws(PtraceError) {
        try check(ctrace_ptrace(cont, pid, 0, UInt(signal)), "CONT", pid)
    }

    static func step(_ pid: pid_t) throws(PtraceError) {
        try check(ctrace_ptrace(singleStep, pid, 0, 0), "SINGLESTEP", pid)
    }

    static func setOptions(_ pid: pid_t, _ options: UInt) throws(PtraceError) {
        try check(ctrace_ptrace(setOptions, pid, 0, options), "SETOPTIONS", pid)
    }

    /// The new thread or process id after a clone/fork/vfork event.
    static func eventMessage(_ pid: pid_t) throws(PtraceError) -> UInt {
        var message: UInt = 0
        let result = withUnsafeMutablePointer(to: &message) {
            ctrace_ptrace(getEventMessage, pid, 0, UInt(bitPattern: $0))
        }
        try check(result, "GETEVENTMSG", pid)
        return message
    }

    /// The signal information of a signal-delivery stop, or `nil` for a group-stop
    /// (GETSIGINFO fails with EINVAL there).
    static func signalInfo(_ pid: pid_t) -> siginfo_t? {
        var info = siginfo_t()
        let result = withUnsafeMutablePointer(to: &info) {
            ctrace_ptrace(getSignalInfo, pid, 0, UInt(bitPattern: $0))
        }
        return result == -1 ? nil : info
    }

    fileprivate static func check(_ result: Int, _ request: String, _ pid: pid_t) throws(PtraceError) {
        if result == -1 { throw PtraceError(request: request, pid: pid, errno: errno) }
    }
}

#if arch(x86_64)
    /// The x86-64 general registers (`user_regs_struct`, PTRACE_GETREGS/SETREGS; other
    /// architectures have neither and use PTRACE_GETREGSET).
    extension Ptrace {
        static let getRegs: Int32 = 12
        static let setRegs: Int32 = 13

        static func registers(_ pid: pid_t) throws(PtraceError) -> user_regs_struct {
            var regs = user_regs_struct()
            let result = withUnsafeMutablePointer(to: &regs) {
                ctrace_ptrace(getRegs, pid, 0, UInt(bitPattern: $0))
            }
            try check(result, "GETREGS", pid)
            return regs
        }

        static func setRegisters(_ pid: pid_t, _ regs: user_regs_struct) throws(PtraceError) {
            var copy = regs
            let result = withUnsafeMutablePointer(to: &copy) {
                ctrace_ptrace(setRegs, pid, 0, UInt(bitPattern: $0))
            }
            try check(result, "SETREGS", pid)
        }
    }
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
