import CTrace
import Glibc
import LosslessText
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
    /// Where the run ends early, counted as a good run (a server's readiness); `nil` to run to exit.
    public var stop: StopCondition?
    /// True to hand premain's own stdin to the target; by default it reads /dev/null.
    public var inheritStdin: Bool
    /// A file the target reads as stdin instead of /dev/null (a declared launch's `stdin`);
    /// `nil`: /dev/null (or premain's own with `inheritStdin`).
    public var stdinPath: String?
    /// The folder the target starts in (a declared launch's `cwd`); `nil`: premain's own.
    public var workingDirectory: String?

    public init(
        executablePath: String, arguments: [String], environment: [String],
        instrumented: Bool, targetCPU: Int? = nil, timeoutSeconds: Double? = nil,
        output: OutputHandling = .discard, stop: StopCondition? = nil, inheritStdin: Bool = false,
        stdinPath: String? = nil, workingDirectory: String? = nil
    ) {
        self.stdinPath = stdinPath
        self.workingDirectory = workingDirectory
        self.executablePath = executablePath
        self.arguments = arguments
        self.environment = environment
        self.instrumented = instrumented
        self.targetCPU = targetCPU
        self.timeoutSeconds = timeoutSeconds
        self.output = output
        self.stop = stop
        self.inheritStdin = inheritStdin
    }
}

/// Where a launch may end before the program exits: the run stops there, its process group is
/// killed, and it counts as a good run (`LaunchOutcome.Kind.stopped`).
public enum StopCondition: Sendable, Equatable {
    /// The first byte on stdout or stderr.
    case firstOutput
    /// `transferring control`: main is about to be called (needs the loader's lines).
    case main
    /// A line of stdout or stderr matches this pattern (a server's "listening on …").
    case ready(OutputPattern)
    /// The first call of this function (mangled or demangled name), seen by a ptrace breakpoint
    /// (x86-64): the only stops are the loader's hook, main, the first write and this function.
    case symbol(String)

    /// For messages: "first output", "main", "a line matching 'listening'".
    public var description: String {
        switch self {
        case .firstOutput: return "first output"
        case .main: return "main"
        case .ready(let pattern): return "a line matching '\(pattern.source)'"
        case .symbol(let name): return name
        }
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
    /// What happens before the launches, when that takes a while ("measuring the tracer's
    /// bias"); `nil` during the launches.
    public var phase: String?

    public init(completed: Int, total: Int, phase: String? = nil) {
        self.completed = completed
        self.total = total
        self.phase = phase
    }
}

/// The real `Launcher`: vfork + execve (nothing of premain is copied or torn down inside the
/// measured time), the child in its own process group and cgroup, optionally pinned, stdin from
/// /dev/null. Process birth is CLOCK_MONOTONIC read by the child just before execve, its set-up
/// done. When instrumented, the child makes
/// the FIFO `LD_DEBUG_OUTPUT.PID` that glibc's loader opens (it appends the pid) before it
/// execs, and the parent opens its read end. stdout goes to a private null device whose first
/// write an inotify watch stamps (output costs what /dev/null costs; one device and one watch
/// serve all the launches of a launcher, see `NullDeviceSink`), or to a pipe when that
/// cannot be made or the bytes are needed; stderr goes to a pipe (its first bytes explain
/// failures). One `poll` loop stamps each loader line, the first output and the exit (the
/// child's pidfd turns readable). At the end the whole process group is killed and reaped.
///
/// Creating one makes this process a child subreaper, so that orphans of the target are
/// re-parented to it and can be reaped.
public struct ProcessLauncher: Launcher {
    /// Bytes of stderr kept in `LaunchSample.stderrHead`.
    static let stderrHeadLimit = 2048

    /// The private null device every launch's stdout goes to (see `NullDeviceSink`); `nil`
    /// where it cannot be made.
    private let nullDevice: NullDeviceSink?

    public init() {
        _ = ctrace_set_child_subreaper()
        nullDevice = NullDeviceSink.make()
    }

    public func launch(_ request: LaunchRequest) throws(LaunchError) -> LaunchSample {
        var environment = request.environment.filter {
            !$0.hasPrefix("LD_DEBUG=") && !$0.hasPrefix("LD_DEBUG_OUTPUT=")
        }
        let folder: String
        // The guard knows the folder before it exists, and forgets it after it is gone: a kill
        // at any moment leaves nothing (the watchdog removes what it was told).
        switch LocalFiles.makeTemporaryFolder("measure", beforeMaking: { ctrace_guard_folder($0) }) {
        case .success(let made): folder = made
        case .failure(let error):
            ctrace_guard_folder(nil)
            throw LaunchError(error.message)
        }
        defer { ctrace_guard_folder(nil) }
        if request.instrumented {
            environment.append(LoaderDebugChannels.environmentEntry)
            environment.append("LD_DEBUG_OUTPUT=\(folder)/ld-debug")
        }
        // The target's own children inherit LD_DEBUG and make regular files NAME.THEIRPID here.
        defer { LocalFiles.removeFolderAndFiles(folder) }

        let needBytes: Bool
        switch (request.output, request.stop) {
        case (.forward, _), (_, .ready?): needBytes = true
        default: needBytes = false
        }
        var capture = try OutputCapture(shared: nullDevice, folder: folder, needBytes: needBytes)
        defer { capture.closeAll() }
        let stdinFD =
            request.inheritStdin && request.stdinPath == nil
            ? Int32(-1) : open(request.stdinPath ?? "/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if stdinFD >= 0 { close(stdinFD) } }
        if let path = request.stdinPath, stdinFD < 0 {
            throw LaunchError("cannot open \(path) for stdin: \(Self.errorText(errno))")
        }
        let cwdFD = request.workingDirectory.map { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } ?? -1
        defer { if cwdFD >= 0 { close(cwdFD) } }
        if let folder = request.workingDirectory, cwdFD < 0 {
            throw LaunchError("cannot open the folder \(folder) to start in: \(Self.errorText(errno))")
        }
        let fifoPrefix = request.instrumented ? "\(folder)/ld-debug." : nil
        let cgroup = TargetCgroup.make()
        defer { cgroup?.remove() }
        if case .symbol(let name) = request.stop {
            return try launchTraced(
                request, until: name, environment: environment, fifoPrefix: fifoPrefix,
                capture: &capture, stdinFD: stdinFD, cwdFD: cwdFD, cgroup: cgroup)
        }
        var result = ctrace_spawn_result()
        let pid = Self.spawn(
            request, environment: environment, fifoPrefix: fifoPrefix, capture: capture, stdinFD: stdinFD,
            cwdFD: cwdFD, cgroup: cgroup, result: &result)
        capture.closeChildEnds()
        guard pid > 0 else {
            throw LaunchError("cannot start a process: \(Self.errorText(-pid))")
        }
        ctrace_guard_add(pid)
        defer { ctrace_guard_remove(pid) }
        var session = LaunchSession(
            request: request, pid: pid, birthNs: result.birthNs > 0 ? result.birthNs : MonotonicClock.nowNs())
        if result.fifoErrno != 0 {
            _ = ProcessGroupReaper.finish(pgid: pid, cgroup: cgroup)  // the child exited 126 without exec
            throw LaunchError(
                "cannot create the LD_DEBUG_OUTPUT fifo in \(folder): \(Self.errorText(result.fifoErrno))")
        }
        if result.execErrno != 0 {
            _ = ProcessGroupReaper.finish(pgid: pid, cgroup: cgroup)  // the child exited 127 after the failed exec
            let outcome = LaunchOutcome(
                kind: .execFailed,
                message: "cannot execute \(request.executablePath): \(Self.errorText(result.execErrno))")
            return session.sample(outcome: outcome)
        }
        // The loader blocks in its open of the FIFO until this read end exists.
        let fifoFD = fifoPrefix.map { open("\($0)\(pid)", O_RDONLY | O_NONBLOCK | O_CLOEXEC) } ?? -1
        let fifoErrno = errno
        let pidFD = ctrace_pidfd_open(pid)
        defer { [fifoFD, pidFD].filter { $0 >= 0 }.forEach { close($0) } }
        if (fifoPrefix != nil && fifoFD < 0) || pidFD < 0 {
            _ = ProcessGroupReaper.finish(pgid: pid, cgroup: cgroup)
            throw LaunchError(
                pidFD < 0
                    ? "cannot open a pidfd for \(pid): \(Self.errorText(-pidFD))"
                    : "cannot open the LD_DEBUG_OUTPUT fifo: \(Self.errorText(fifoErrno))")
        }

        let ending = session.pump(fifo: fifoFD, capture: &capture, pidFD: pidFD)
        let reaped = ProcessGroupReaper.finish(pgid: pid, cgroup: cgroup)
        return Self.sample(
            of: session, ending: ending, reaped: reaped,
            childLoaderFiles: Self.childLoaderFiles(folder, excluding: pid),
            throughPipe: !capture.isNullDevice)
    }

    /// Starts the target (not traced) with its descriptors, in its cgroup, on its CPU; the pid,
    /// or a negative errno.
    private static func spawn(
        _ request: LaunchRequest, environment: [String], fifoPrefix: String?, capture: OutputCapture,
        stdinFD: Int32, cwdFD: Int32, cgroup: TargetCgroup?, result: inout ctrace_spawn_result
    ) -> pid_t {
        CStringArray.with(request.arguments) { argv in
            CStringArray.with(environment) { envp in
                Self.withOptionalCString(fifoPrefix) { prefix in
                    var options = ctrace_spawn_options(
                        cpu: Int32(request.targetCPU ?? -1), traceme: 0,
                        stdinFD: stdinFD, stdoutFD: capture.stdoutWrite,
                        stderrFD: capture.stderrWrite, fifoPrefix: prefix,
                        cgroupProcsFD: cgroup?.procsFD ?? -1, cwdFD: cwdFD)
                    return LosslessUTF8.withCString(request.executablePath) { path in
                        ctrace_spawn(path, argv, envp, &options, &result)
                    }
                }
            }
        }
    }

    /// The sample of a launch that ran to its end (or its stop): its outcome from how the pump
    /// ended and how the group was reaped, with the counts of what it left.
    private static func sample(
        of session: LaunchSession, ending: LaunchSession.Ending, reaped: ProcessGroupReaper.Result,
        childLoaderFiles children: Int, throughPipe: Bool
    ) -> LaunchSample {
        let request = session.request
        var outcome: LaunchOutcome
        if case .stopped(let condition) = ending {
            outcome = LaunchOutcome(
                kind: .stopped, message: "stopped at \(condition.description) as asked; its process group was killed",
                lingeringProcessesKilled: reaped.othersKilled)
        } else {
            outcome = Self.outcome(
                status: reaped.leaderStatus, timedOut: ending == .timedOut,
                timeout: request.timeoutSeconds, stderrHead: session.stderrHeadText,
                lingering: reaped.othersKilled)
            if let stop = request.stop { outcome = Self.notReached(outcome, stop: stop) }
        }
        var sample = session.sample(outcome: outcome)
        sample.childProcessesWithLoaderOutput = request.instrumented && children > 0 ? children : nil
        sample.outputThroughPipe = throughPipe
        sample.cpuMs = reaped.leaderCPUMs
        sample.usage = reaped.leaderUsage
        if reaped.leftBehind {
            sample.outcome.processesLeftBehind = true
            sample.outcome.message += "; processes of its group outlived SIGKILL"
        }
        return sample
    }

    /// A run asked to stop at a milestone that exited with status 0 first did not do what was
    /// asked: a failed run.
    static func notReached(_ outcome: LaunchOutcome, stop: StopCondition, why: String? = nil) -> LaunchOutcome {
        guard outcome.kind == .success else { return outcome }
        var result = outcome
        result.kind = .notReached
        result.message = "exited with status 0 before \(stop.description)" + (why.map { " (\($0))" } ?? "")
        return result
    }

    /// Files `ld-debug.PID` that the target's children (which inherit LD_DEBUG) wrote.
    static func childLoaderFiles(_ folder: String, excluding pid: Int32) -> Int {
        guard case .success(let names) = LocalFiles.entries(of: folder) else { return 0 }
        return names.filter { $0.hasPrefix("ld-debug.") && $0 != "ld-debug.\(pid)" }.count
    }

    static func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
        guard let string else { return body(nil) }
        return string.withCString { body($0) }
    }

    static func outcome(
        status: Int32?, timedOut: Bool, timeout: Double?, stderrHead: String,
        lingering: Int
    ) -> LaunchOutcome {
        if timedOut {
            let limit = timeout.map { Milliseconds.number($0, decimals: 1) } ?? "?"
            return LaunchOutcome(
                kind: .timedOut, message: "did not exit within the \(limit) s timeout; its process group was killed",
                lingeringProcessesKilled: lingering)
        }
        guard let status else {
            return LaunchOutcome(
                kind: .signaled, message: "its wait status could not be read",
                lingeringProcessesKilled: lingering)
        }
        let termSignal = status & 0x7f
        if termSignal == 0 {
            let code = (status >> 8) & 0xff
            if code == 127,
                let line = stderrHead.split(separator: "\n").first(where: {
                    $0.contains("error while loading shared libraries")
                })
            {
                return LaunchOutcome(
                    kind: .missingLibrary, exitStatus: code,
                    message: "the loader failed: \(line)", lingeringProcessesKilled: lingering)
            }
            if code == 0 {
                return LaunchOutcome(
                    kind: .success, exitStatus: 0, message: "exited with status 0",
                    lingeringProcessesKilled: lingering)
            }
            return LaunchOutcome(
                kind: .exitNonZero, exitStatus: code, message: "exited with status \(code)",
                lingeringProcessesKilled: lingering)
        }
        let name = strsignal(termSignal).map { String(cString: $0) } ?? "unknown"
        return LaunchOutcome(
            kind: .signaled, signal: termSignal,
            message: "killed by signal \(termSignal) (\(name))", lingeringProcessesKilled: lingering)
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

/// NULL-terminated `char *[]` for `execve`, alive for the duration of a closure; each string as
/// the bytes it stands for (`LosslessUTF8`: an argument that is not UTF-8 arrives unchanged).
enum CStringArray {
    static func with<R>(_ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { LosslessUTF8.withCString($0) { strdup($0) } }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}
