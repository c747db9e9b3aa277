import CTrace
import Glibc
import PremainAudit
import PremainModel

/// Ends a launched process group: kills every member, reaps the leader (keeping its wait
/// status) and every other member re-parented to us, and waits until the group is empty.
struct ProcessGroupReaper {
    /// The leader's raw wait status, and how many other members were still alive.
    struct Result {
        var leaderStatus: Int32?
        /// The leader's user + system CPU time in ms (its own, not its children's).
        var leaderCPUMs: Double?
        var othersKilled: Int
        var leftBehind: Bool
    }

    /// Kills group `pgid` (whose leader is our child `pgid`) and reaps it. Blocks at most about
    /// `patienceSeconds` for members that are not our children to disappear.
    static func finish(pgid: pid_t, patienceSeconds: Double = 2) -> Result {
        var status: Int32 = 0
        var leaderStatus: Int32?
        var leaderCPUMs: Double?
        func reapLeader(_ options: Int32) {
            while leaderStatus == nil {
                var usage = rusage()
                let reaped = wait4(pgid, &status, options, &usage)
                if reaped == pgid {
                    leaderStatus = status
                    func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }
                    leaderCPUMs = ms(usage.ru_utime) + ms(usage.ru_stime)
                } else if reaped == 0 || (reaped < 0 && errno != EINTR) {
                    return
                }
            }
        }
        // Fast path: the leader has exited and the group is empty, so no /proc scan is needed.
        reapLeader(WNOHANG)
        if leaderStatus != nil && kill(-pgid, 0) != 0 && errno == ESRCH {
            return Result(leaderStatus: leaderStatus, leaderCPUMs: leaderCPUMs, othersKilled: 0, leftBehind: false)
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
        let leftBehind = !liveMembers(of: pgid).isEmpty
        return Result(leaderStatus: leaderStatus, leaderCPUMs: leaderCPUMs, othersKilled: others, leftBehind: leftBehind)
    }

    /// Pids in /proc whose process group is `pgid` and which are not zombies. `[]` when none.
    static func liveMembers(of pgid: pid_t) -> [pid_t] {
        ProcessTable.members(ofGroup: pgid).filter { !$0.zombie }.map(\.pid)
    }
}
