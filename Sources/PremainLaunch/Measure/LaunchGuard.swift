import CTrace
import PremainAudit
import PremainModel

/// Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT to premain kill the running target's process group
/// first (the target has its own group, so a terminal's Ctrl-C does not reach it). The handler
/// then restores the default action and re-raises the signal, so premain still dies of it.
/// Shared by `measure` and `trace`.
public enum LaunchGuard {
    /// Installs the handlers (once; later calls do nothing); `ProcessLauncher` and `TraceSession`
    /// register each group they start. Returns an error message, or `nil` when installed.
    public static func installSignalHandlers() -> String? {
        let result = ctrace_guard_install()
        return result == 0 ? nil : "cannot install signal handlers (errno \(-result))"
    }
}
