/// How one launch ended.
public struct LaunchOutcome: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// Exited with status 0.
        case success
        /// Exited with a non-zero status.
        case exitNonZero = "exit_non_zero"
        /// Killed by a signal it did not handle.
        case signaled
        /// Did not exit within `--timeout`; premain killed its process group.
        case timedOut = "timed_out"
        /// The loader could not find or load a library (`error while loading shared libraries`).
        case missingLibrary = "missing_library"
        /// `execve` itself failed (no such file, not executable, bad format).
        case execFailed = "exec_failed"
    }

    public var kind: Kind
    /// The exit status, when it exited.
    public var exitStatus: Int32?
    /// The signal number, when a signal killed it.
    public var signal: Int32?
    /// A one-line explanation: "killed by SIGSEGV", "exited with status 3", the loader's error.
    public var message: String
    /// Processes of its group still alive after it ended, which premain killed. 0 when none.
    public var lingeringProcessesKilled: Int
    /// True when some process of its group was still there after SIGKILL and two seconds of
    /// waiting (stuck in the kernel, or re-parented where premain cannot reap it).
    public var processesLeftBehind: Bool = false

    public init(kind: Kind, exitStatus: Int32? = nil, signal: Int32? = nil, message: String,
                lingeringProcessesKilled: Int = 0) {
        self.kind = kind
        self.exitStatus = exitStatus
        self.signal = signal
        self.message = message
        self.lingeringProcessesKilled = lingeringProcessesKilled
    }

    /// True only for `.success`.
    public var succeeded: Bool { kind == .success }
}
