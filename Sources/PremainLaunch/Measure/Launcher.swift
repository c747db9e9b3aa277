import CTrace
import Glibc
import PremainModel
import PremainSystem

/// Launches a program once and reports what happened. `ProcessLauncher` is the real one;
/// tests of statistics and rendering use a scripted fake.
public protocol Launcher: Sendable {
    /// Runs `request` to its end (or its timeout) and leaves no process of its group behind.
    /// Failures of the target (exit status, signal, missing library, failed exec, timeout) are
    /// outcomes in the sample; throws `LaunchError` only when the launch could not be set up.
    func launch(_ request: LaunchRequest) throws(LaunchError) -> LaunchSample
}

/// One launch to perform.
public struct LaunchRequest: Sendable {
    /// Where the target's stdout and stderr bytes go once their arrival time is taken.
    public enum OutputHandling: Sendable {
        /// Dropped.
        case discard
        /// Handed to the consumer as they arrive (the CLI writes them to its own stdout/stderr).
        case forward(@Sendable (LaunchSample.Stream, [UInt8]) -> Void)
    }

    /// The executable to `execve` (an absolute or relative path, no PATH search).
    public var executablePath: String
    /// `argv`, including `argv[0]`.
    public var arguments: [String]
    /// The complete environment as `NAME=value` strings.
    public var environment: [String]
    /// Adds `LD_DEBUG=files,statistics` and `LD_DEBUG_OUTPUT` (a FIFO read by the launcher).
    public var instrumented: Bool
    /// CPU to pin the target to, or `nil`.
    public var targetCPU: Int?
    /// Seconds before the launch is killed, or `nil` for no limit.
    public var timeoutSeconds: Double?
    public var output: OutputHandling

    public init(executablePath: String, arguments: [String], environment: [String],
                instrumented: Bool, targetCPU: Int? = nil, timeoutSeconds: Double? = nil,
                output: OutputHandling = .discard) {
        self.executablePath = executablePath
        self.arguments = arguments
        self.environment = environment
        self.instrumented = instrumented
        self.targetCPU = targetCPU
        self.timeoutSeconds = timeoutSeconds
        self.output = output
    }
}

/// The launch could not be set up (no FIFO, no pipe, fork failed).
public struct LaunchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Lowercase, no trailing period: "cannot create a pipe: Too many open files".
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// How far a series of launches has got, for a progress bar: `measure` reports after every
/// launch (warm-ups and both series included), `trace` after every traced run.
public struct LaunchProgress: Equatable, Sendable {
    /// Launches finished so far: 1 after the first.
    public var completed: Int
    /// Launches the series makes in all.
    public var total: Int

    public init(completed: Int, total: Int) {
        self.completed = completed
        self.total = total
    }
}

/// The real `Launcher`: fork, then (child) own process group, optional CPU pin, stdin from
/// /dev/null, stdout and stderr into pipes, and a gate before `execve`. The parent creates the
/// FIFO `LD_DEBUG_OUTPUT.PID` that glibc will open (it appends the pid), opens it for reading,
/// reads the clock (process birth) and opens the gate. One `poll` loop then stamps each loader
/// line, the first output byte and the exit (the child's pidfd turns readable) as they arrive.
/// At the end the whole process group is killed and reaped, whatever happened.
///
/// Creating one makes this process a child subreaper, so that orphans of the target are
/// re-parented to it and can be reaped.
public struct ProcessLauncher: Launcher {
    /// Bytes of stderr kept in `LaunchSample.stderrHead`.
    static let stderrHeadLimit = 2048

    public init() {
        _ = ctrace_set_child_subreaper()
    }

    public func launch(_ request: LaunchRequest) throws(LaunchError) -> LaunchSample {
        var environment = request.environment.filter {
            !$0.hasPrefix("LD_DEBUG=") && !$0.hasPrefix("LD_DEBUG_OUTPUT=")
        }
        var fifoDirectory: String?
        if request.instrumented {
            var template = Array("/tmp/premain-measure-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else {
                throw LaunchError("cannot create a temporary folder in /tmp: \(Self.errorText(errno))")
            }
            let directory = String(cString: made)
            fifoDirectory = directory
            environment.append("LD_DEBUG=files,statistics")
            environment.append("LD_DEBUG_OUTPUT=\(directory)/ld-debug")
        }
        // The target's own children inherit LD_DEBUG and make regular files NAME.THEIRPID here.
        defer { if let fifoDirectory { Self.removeFolder(fifoDirectory) } }

        let stdoutPipe = try Self.makePipe()
        let stderrPipe = try Self.makePipe()
        let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
        var options = ctrace_spawn_options(cpu: Int32(request.targetCPU ?? -1), traceme: 0,
                                           stdinFD: devNull, stdoutFD: stdoutPipe.write,
                                           stderrFD: stderrPipe.write)
        var gate = ctrace_gate(goFD: -1, reportFD: -1)
        let pid = CStringArray.with(request.arguments) { argv in
            CStringArray.with(environment) { envp in
                ctrace_spawn_gated(request.executablePath, argv, envp, &options, &gate)
            }
        }
        close(stdoutPipe.write)
        close(stderrPipe.write)
        if devNull >= 0 { close(devNull) }
        guard pid > 0 else {
            close(stdoutPipe.read)
            close(stderrPipe.read)
            throw LaunchError("cannot fork: \(Self.errorText(-pid))")
        }
        ctrace_guard_add(pid)
        defer { ctrace_guard_remove(pid) }

        var fifoFD: Int32 = -1
        var fifoPath: String?
        if let fifoDirectory {
            let path = "\(fifoDirectory)/ld-debug.\(pid)"
            fifoPath = path
            if mkfifo(path, 0o600) == 0 {
                fifoFD = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            }
        }
        defer { if let fifoPath { unlink(fifoPath) } }
        ctrace_guard_paths(fifoPath, fifoDirectory)
        defer { ctrace_guard_paths(nil, nil) }
        let pidFD = ctrace_pidfd_open(pid)
        // Closed once the group is reaped, on every path below.
        defer { [fifoFD, pidFD, stdoutPipe.read, stderrPipe.read].filter { $0 >= 0 }.forEach { close($0) } }
        if (fifoDirectory != nil && fifoFD < 0) || pidFD < 0 {
            let why = Self.errorText(errno)
            close(gate.goFD)  // the child exits 126 without exec
            close(gate.reportFD)
            _ = ProcessGroupReaper.finish(pgid: pid)
            throw LaunchError(pidFD < 0 ? "cannot open a pidfd for \(pid): \(why)"
                                        : "cannot create the LD_DEBUG_OUTPUT fifo: \(why)")
        }

        var session = LaunchSession(request: request, pid: pid, birthNs: MonotonicClock.nowNs())
        let execResult = ctrace_release(&gate)
        if execResult < 0 {
            _ = ProcessGroupReaper.finish(pgid: pid)  // the child exited 127 after the failed exec
            let outcome = LaunchOutcome(kind: .execFailed,
                                        message: "cannot execute \(request.executablePath): \(Self.errorText(-execResult))")
            return session.sample(outcome: outcome)
        }

        let timedOut = session.pump(fifo: fifoFD, stdout: stdoutPipe.read, stderr: stderrPipe.read,
                                    pidFD: pidFD)
        let reaped = ProcessGroupReaper.finish(pgid: pid)
        let outcome = Self.outcome(status: reaped.leaderStatus, timedOut: timedOut,
                                   timeout: request.timeoutSeconds, stderrHead: session.stderrHeadText,
                                   lingering: reaped.othersKilled)
        var sample = session.sample(outcome: outcome)
        sample.cpuMs = reaped.leaderCPUMs
        sample.usage = reaped.leaderUsage
        if reaped.leftBehind {
            sample.outcome.processesLeftBehind = true
            sample.outcome.message += "; processes of its group outlived SIGKILL"
        }
        return sample
    }

    static func outcome(status: Int32?, timedOut: Bool, timeout: Double?, stderrHead: String,
                        lingering: Int) -> LaunchOutcome {
        if timedOut {
            let limit = timeout.map { Milliseconds.number($0, decimals: 1) } ?? "?"
            return LaunchOutcome(kind: .timedOut, message: "did not exit within the \(limit) s timeout; its process group was killed",
                                 lingeringProcessesKilled: lingering)
        }
        guard let status else {
            return LaunchOutcome(kind: .signaled, message: "its wait status could not be read",
                                 lingeringProcessesKilled: lingering)
        }
        let termSignal = status & 0x7f
        if termSignal == 0 {
            let code = (status >> 8) & 0xff
            if code == 127, let line = stderrHead.split(separator: "\n").first(where: {
                $0.contains("error while loading shared libraries")
            }) {
                return LaunchOutcome(kind: .missingLibrary, exitStatus: code,
                                     message: "the loader failed: \(line)", lingeringProcessesKilled: lingering)
            }
            if code == 0 {
                return LaunchOutcome(kind: .success, exitStatus: 0, message: "exited with status 0",
                                     lingeringProcessesKilled: lingering)
            }
            return LaunchOutcome(kind: .exitNonZero, exitStatus: code, message: "exited with status \(code)",
                                 lingeringProcessesKilled: lingering)
        }
        let name = strsignal(termSignal).map { String(cString: $0) } ?? "unknown"
        return LaunchOutcome(kind: .signaled, signal: termSignal,
                             message: "killed by signal \(termSignal) (\(name))", lingeringProcessesKilled: lingering)
    }

    /// Deletes the files of a flat folder, then the folder.
    static func removeFolder(_ path: String) {
        if case .success(let names) = LocalFiles.entries(of: path) {
            for name in names { unlink(path + "/" + name) }
        }
        rmdir(path)
    }

    static func makePipe() throws(LaunchError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw LaunchError("cannot create a pipe: \(errorText(errno))")
        }
        // Close-on-exec on both ends (the child gets its own copies by dup2, which clears it);
        // the race with another thread's fork is harmless: such a child would only hold a copy.
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        return (fds[0], fds[1])
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// NULL-terminated `char *[]` for `execve`, alive for the duration of a closure.
enum CStringArray {
    static func with<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
