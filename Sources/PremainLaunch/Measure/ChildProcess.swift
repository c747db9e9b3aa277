import CTrace
import Glibc
import LosslessText

/// Runs the helper programs of `premain pr --commits` (git, the user's build command): not a
/// measured launch, but ended as one is. Each runs in its own process group, registered with
/// the interrupt guard (`LaunchGuard`), so that SIGINT, SIGTERM, SIGHUP or SIGQUIT to premain,
/// and the watchdog after a SIGKILL, kill the whole group, the build's own children included;
/// when the leader exits, what it left in its group is killed too. Output goes to premain's
/// stderr, so that stdout stays the report; `capture` reads stdout instead (a SHA from `git
/// rev-parse`). stdin is /dev/null.
public enum ChildProcess {
    public struct Finished: Equatable, Sendable {
        /// The exit status; 128 + N when killed by signal N; 127 when it could not start.
        public var status: Int32
        /// Its stdout when captured, else "".
        public var output: String
        /// True when `timeoutSeconds` passed first and the group was killed.
        public var timedOut = false
    }

    /// The signals the guard handles, blocked while a child is started and registered.
    private static let guardedSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Runs `arguments` (the first looked up in PATH) with premain's environment. With
    /// `timeoutSeconds`, the group is killed when the leader has not exited by then.
    public static func run(_ arguments: [String], capture: Bool = false, timeoutSeconds: Double? = nil) -> Finished {
        guard !arguments.isEmpty else { return Finished(status: 127, output: "") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeFDs: [Int32] = [-1, -1]
        if capture {
            guard pipe(&pipeFDs) == 0 else { return Finished(status: 127, output: "") }
            // Not inherited by other children; the dup2 below gives the child its own fd 1.
            _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own group, nothing blocked, and the default action for the signals premain
        // handles or ignores (a build must die of SIGPIPE as it would from a shell).
        var none = sigset_t()
        var defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in guardedSignals + [SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { LosslessUTF8.withCString($0) { strdup($0) } } + [nil]
        defer { for pointer in argv { free(pointer) } }

        // A signal between the spawn and the registration would leave the group unknown to the guard.
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        for signal in guardedSignals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        var pid: pid_t = 0
        let started = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
        if started == 0 { _ = ctrace_guard_add(pid) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        if capture { close(pipeFDs[1]) }
        guard started == 0 else {
            if capture { close(pipeFDs[0]) }
            return Finished(status: 127, output: "")
        }
        defer { ctrace_guard_remove(pid) }

        var output: [UInt8] = []
        if capture {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                output += chunk[0..<count]
            }
            close(pipeFDs[0])
        }
        let exited = awaitExit(
            pid, deadlineNs: timeoutSeconds.map { MonotonicClock.nowNs() + UInt64(max(0, min($0, 1e9)) * 1e9) })
        // The leader is a zombie (or still running at the timeout): its group id is still its own.
        _ = kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return Finished(status: 127, output: "") }
        }
        let code: Int32 = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Finished(status: code, output: String(decoding: output, as: UTF8.self), timedOut: !exited)
    }

    /// Waits, without reaping, until child `pid` has exited (true) or `deadlineNs` passes
    /// (false): its pidfd polled, or /proc/PID/stat read every 20 ms where there is no pidfd.
    static func awaitExit(_ pid: pid_t, deadlineNs: UInt64?) -> Bool {
        let pidFD = ctrace_pidfd_open(pid)
        defer { if pidFD >= 0 { close(pidFD) } }
        while true {
            var waitMs: Int32 = -1
            if let deadlineNs {
                let now = MonotonicClock.nowNs()
                if now >= deadlineNs { return false }
                waitMs = Int32(min((deadlineNs - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            }
            if pidFD >= 0 {
                var entry = pollfd(fd: pidFD, events: Int16(POLLIN), revents: 0)
                let ready = poll(&entry, 1, waitMs)
                if ready > 0 { return true }
                if ready < 0 && errno != EINTR { return true }  // cannot wait: let waitpid block
            } else {
                guard let stat = ProcessTable.readStat(pid), stat.state != "Z" else { return true }
                var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
                nanosleep(&pause, nil)
            }
        }
    }
}
