import Foundation

/// Waiting for something another process does (start, stop, go away) without a fixed sleep.
public enum Poll {
    /// Checks `condition` every 10 ms until it holds; `false` when it still does not after
    /// `seconds`. The limit is a hang guard, generous on purpose, never a measure of speed.
    public static func until(seconds: Double = 60, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            if Date() >= deadline { return false }
            usleep(10_000)
        }
        return true
    }

    /// Waits for `process` to end; when it has not after `seconds` (a hang), kills it with
    /// SIGKILL, reaps it and returns `false`.
    public static func exit(of process: Process, seconds: Double = 60) -> Bool {
        if until(seconds: seconds, { !process.isRunning }) { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }
}
