import CTrace

/// Makes SIGINT, SIGTERM and SIGHUP to premain kill the running target's process group first
/// (the target has its own group, so a terminal's Ctrl-C does not reach it). The handler then
/// restores the default action and re-raises the signal, so premain still dies of it.
public enum LaunchGuard {
    /// Installs the handlers; `ProcessLauncher` keeps the guarded group current. Returns an
    /// error message, or `nil` when installed.
    public static func installSignalHandlers() -> String? {
        let result = ctrace_install_group_guard()
        return result == 0 ? nil : "cannot install signal handlers (errno \(-result))"
    }
}
