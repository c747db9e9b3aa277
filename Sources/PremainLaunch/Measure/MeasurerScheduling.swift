import Glibc
import PremainAudit
import PremainModel

/// Real-time priority for the measuring thread while a series runs. The measurer sleeps in
/// `poll` almost all the time; with `SCHED_FIFO` it preempts ordinary work on its CPU the moment
/// a loader line arrives, so other processes (a compiler on a shared machine) cannot delay the
/// time stamps by a scheduler tick or more. `SCHED_RESET_ON_FORK` makes the target start as an
/// ordinary `SCHED_OTHER` process. Needs CAP_SYS_NICE (root); without it nothing changes.
public enum MeasurerScheduling {
    static let priority: Int32 = 50
    static let resetOnFork: Int32 = 0x4000_0000  // SCHED_RESET_ON_FORK

    /// Runs `body` with the calling thread at SCHED_FIFO when `requested` and permitted, then
    /// restores SCHED_OTHER. Also returns a description of what was used, for the conditions.
    public static func run<R, E: Error>(requested: Bool, _ body: () throws(E) -> R) throws(E) -> (R, String) {
        guard requested else {
            return (try body(), "SCHED_OTHER (real-time measurer disabled)")
        }
        var parameters = sched_param(sched_priority: priority)
        guard sched_setscheduler(0, Int32(SCHED_FIFO) | resetOnFork, &parameters) == 0 else {
            let why = String(cString: strerror(errno))
            return (try body(), "SCHED_OTHER (SCHED_FIFO refused: \(why))")
        }
        defer {
            var normal = sched_param(sched_priority: 0)
            _ = sched_setscheduler(0, Int32(SCHED_OTHER), &normal)
        }
        return (try body(), "SCHED_FIFO priority \(priority) for the measurer only (reset on fork: the target runs SCHED_OTHER)")
    }
}
