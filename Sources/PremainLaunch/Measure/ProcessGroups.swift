import CTrace
import Glibc
import LosslessText
import PremainModel
import PremainSystem
import Synchronization

/// Ends a launched process group: kills every member, reaps the leader (keeping its wait
/// status) and every other member re-parented to us, and waits until the group is empty.
struct ProcessGroupReaper {
    /// The leader's raw wait status, and how many other members were still alive.
    struct Result {
        var leaderStatus: Int32?
        /// The leader's user + system CPU time in ms (its own, not its children's).
        var leaderCPUMs: Double?
        /// The leader's fault and context-switch counts.
        var leaderUsage: ResourceUsage?
        var othersKilled: Int
        var leftBehind: Bool
    }

    /// Kills group `pgid` (whose leader is our child `pgid`) and reaps it. Blocks at most about
    /// `patienceSeconds` for members that are not our children to disappear.
    static func finish(pgid: pid_t, cgroup: TargetCgroup? = nil, patienceSeconds: Double = 2) -> Result {
        var status: Int32 = 0
        var leaderStatus: Int32?
        var leaderCPUMs: Double?
        var leaderUsage: ResourceUsage?
        func reapLeader(_ options: Int32) {
            while leaderStatus == nil {
                var usage = rusage()
                let reaped = wait4(pgid, &status, options, &usage)
                if reaped == pgid {
                    leaderStatus = status
                    func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }
                    leaderCPUMs = ms(usage.ru_utime) + ms(usage.ru_stime)
                    leaderUsage = ResourceUsage(
                        minorFaults: usage.ru_minflt, majorFaults: usage.ru_majflt,
                        voluntarySwitches: usage.ru_nvcsw, involuntarySwitches: usage.ru_nivcsw)
                } else if reaped == 0 || (reaped < 0 && errno != EINTR) {
                    return
                }
            }
        }
        // Fast path: the leader has exited and the group is empty, so no /proc scan is needed.
        reapLeader(WNOHANG)
        if leaderStatus != nil && kill(-pgid, 0) != 0 && errno == ESRCH {
            let escaped = endEscaped(cgroup: cgroup, patienceSeconds: patienceSeconds)
            return Result(
                leaderStatus: leaderStatus, leaderCPUMs: leaderCPUMs, leaderUsage: leaderUsage,
                othersKilled: escaped.killed, leftBehind: escaped.leftBehind)
        }
        // Count members still alive (not zombies) other than the leader before killing them.
        let others = liveMembers(of: pgid).filter { $0 != pgid }.count
        _ = kill(-pgid, SIGKILL)
        reapLeader(0)
        // Members re-parented to us (we are a child subreaper) are reaped here.
        while true {
            let reaped = waitpid(-pgid, &status, 0)
            if reaped > 0 { continue }
            if reaped < 0 && errno == EINTR { continue }
            break
        }
        // Members that are not our children: wait for whoever reaps them.
        let deadline = MonotonicClock.nowNs() + UInt64(patienceSeconds * 1e9)
        while !ProcessTable.members(ofGroup: pgid).isEmpty {
            if MonotonicClock.nowNs() > deadline { break }
            _ = kill(-pgid, SIGKILL)
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
        }
        let escaped = endEscaped(cgroup: cgroup, patienceSeconds: patienceSeconds)
        let leftBehind = !liveMembers(of: pgid).isEmpty || escaped.leftBehind
        return Result(
            leaderStatus: leaderStatus, leaderCPUMs: leaderCPUMs, leaderUsage: leaderUsage,
            othersKilled: others + escaped.killed, leftBehind: leftBehind)
    }

    /// Processes of the launch that left its process group (`setsid` after a double fork):
    /// everything still in the target cgroup, else our re-parented children (we are a child
    /// subreaper) other than the watchdog. Kills and reaps them; `leftBehind` when some
    /// survived `patienceSeconds`.
    static func endEscaped(cgroup: TargetCgroup?, patienceSeconds: Double) -> (killed: Int, leftBehind: Bool) {
        let me = getpid()
        let watchdog = LaunchGuard.watchdogPID
        func strays() -> [pid_t] {
            if let cgroup { return cgroup.members() }
            // Only the CLI knows that every child of premain is a target (a test runner's
            // children are its own business).
            guard watchdog != 0 else { return [] }
            return ProcessTable.children(of: me).filter { $0 != watchdog }
        }
        let found = strays()
        guard !found.isEmpty else { return (0, false) }
        let deadline = MonotonicClock.nowNs() + UInt64(patienceSeconds * 1e9)
        var remaining = found
        while !remaining.isEmpty {
            if let cgroup { cgroup.killAll() } else { remaining.forEach { kill($0, SIGKILL) } }
            var status: Int32 = 0
            for pid in remaining { _ = waitpid(pid, &status, WNOHANG) }
            remaining = strays().filter { ProcessTable.isAlive($0) }
            if remaining.isEmpty || MonotonicClock.nowNs() > deadline { break }
            var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
            nanosleep(&pause, nil)
        }
        return (found.count, !remaining.isEmpty)
    }

    /// Pids in /proc whose process group is `pgid` and which are not zombies. `[]` when none.
    static func liveMembers(of pgid: pid_t) -> [pid_t] {
        ProcessTable.members(ofGroup: pgid).filter { !$0.zombie }.map(\.pid)
    }
}

/// A scan of /proc/PID/stat: which processes exist in a process group. Used to prove that a
/// launch left nothing behind.
public enum ProcessTable {
    /// One process of the scan.
    public struct Member: Equatable, Sendable {
        public var pid: pid_t
        /// State `Z`: dead, waiting to be reaped.
        public var zombie: Bool
    }

    /// Every process whose process group is `pgid`, zombies included. `[]` when none or when
    /// /proc cannot be read.
    public static func members(ofGroup pgid: pid_t) -> [Member] {
        guard case .success(let names) = LocalFiles.entries(of: "/proc") else { return [] }
        var found: [Member] = []
        for name in names {
            guard let pid = pid_t(name), let stat = readStat(pid) else { continue }
            if stat.pgrp == pgid { found.append(Member(pid: pid, zombie: stat.state == "Z")) }
        }
        return found
    }

    /// Live (not zombie) processes whose parent is `parent`.
    public static func children(of parent: pid_t) -> [pid_t] {
        guard case .success(let names) = LocalFiles.entries(of: "/proc") else { return [] }
        return names.compactMap { name -> pid_t? in
            guard let pid = pid_t(name), let stat = readStat(pid), stat.ppid == parent, stat.state != "Z" else {
                return nil
            }
            return pid
        }
    }

    /// True while `pid` exists and is not a zombie.
    public static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = readStat(pid) else { return false }
        return stat.state != "Z"
    }

    /// State letter, parent and process group from /proc/PID/stat; `nil` when the process is gone.
    static func readStat(_ pid: pid_t) -> (state: Character, ppid: pid_t, pgrp: pid_t)? {
        guard let text = LocalFiles.readText("/proc/\(pid)/stat", limit: 1024) else { return nil }
        // "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses; split after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count >= 3, let state = fields[0].first, let ppid = pid_t(fields[1]), let pgrp = pid_t(fields[2])
        else { return nil }
        return (state, ppid, pgrp)
    }
}

/// A number shared between threads: the watchdog's pid, the cgroup counter.
final class AtomicPID: Sendable {
    private let value = Mutex<pid_t>(0)

    /// Adds one and returns the new value.
    func next() -> pid_t {
        value.withLock {
            $0 += 1
            return $0
        }
    }

    func store(_ pid: pid_t) { value.withLock { $0 = pid } }

    func load() -> pid_t { value.withLock { $0 } }
}

/// Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT to premain kill the running target's process group
/// first (the target has its own group, so a terminal's Ctrl-C does not reach it). The handler
/// then restores the default action and re-raises the signal, so premain still dies of it.
/// Shared by `measure`, `trace` and `pr` (whose builds and git commands run as `ChildProcess`).
public enum LaunchGuard {
    /// Installs the handlers (once; later calls do nothing); `ProcessLauncher` and `TraceSession`
    /// register each group they start. Returns an error message, or `nil` when installed.
    public static func installSignalHandlers() -> String? {
        let result = ctrace_guard_install()
        if result != 0 { return "cannot install signal handlers (errno \(-result))" }
        let watchdog = ctrace_guard_watchdog_start()
        if watchdog < 0 {
            return "cannot start the watchdog that ends the target if premain is killed (errno \(-watchdog))"
        }
        if watchdog > 0 { watchdogStorage.store(watchdog) }
        return nil
    }

    /// Registers `command` (its first element an absolute path, at most 8 elements) for the
    /// watchdog to run once premain is gone, SIGKILL included; an interrupted premain lets the
    /// watchdog go and waits for it (up to about 30 s) before it dies of the signal. `pr
    /// --commits` removes its worktrees so. `[]` forgets it. Returns false when there is no
    /// watchdog (call `installSignalHandlers` first) or an element holds a newline or 4 KiB.
    public static func cleanUpAtExit(_ command: [String]) -> Bool {
        CStringArray.with(command) { argv in
            guard let argv else { return false }
            return argv.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: command.count + 1) {
                ctrace_guard_cleanup($0, Int32(command.count)) == 0
            }
        }
    }

    /// Registers the temporary file an output is being written to (`nil` forgets it): SIGINT,
    /// SIGTERM, SIGHUP and SIGQUIT remove it (the handlers are installed here when no command
    /// installed them, without a watchdog), and so does the watchdog when there is one and
    /// premain is killed outright. One file at a time.
    public static func removeOnSignal(temporary path: String?) {
        guard let path else {
            ctrace_guard_temporary(nil)
            return
        }
        _ = ctrace_guard_install()
        LosslessUTF8.withCString(path) { ctrace_guard_temporary($0) }
    }

    /// The watchdog's pid once started (see `ctrace_guard_watchdog_start`); 0 before.
    public static var watchdogPID: pid_t { watchdogStorage.load() }

    private static let watchdogStorage = AtomicPID()
}
