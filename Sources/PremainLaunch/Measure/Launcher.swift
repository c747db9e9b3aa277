import PremainAudit
import PremainModel

/// Launches a program once and reports what happened. `ProcessLauncher` is the real one;
/// tests of statistics and rendering use a scripted fake.
public protocol Launcher: Sendable {
    /// Runs `request` to its end (or its timeout) and leaves no process of its group behind.
    /// Failures of the target (exit status, signal, missing library, failed exec, timeout) are
    /// outcomes in the sample; throws `LaunchError` only when the launch could not be set up.
    func launch(_ request: LaunchRequest) throws(LaunchError) -> LaunchSample
}
