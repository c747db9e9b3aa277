import LosslessText
import PremainLaunch
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `premain field run -- COMMAND`: the launcher that gives a launch its exact birth. The
/// command is looked up first; then PREMAIN_T0 (`NS:PID`, CLOCK_MONOTONIC just before execve,
/// premain's own pid, which the command keeps) and LD_AUDIT (the recorder first, an existing
/// list kept after it) are set, and premain's image is replaced by the command.
enum FieldLauncher {
    /// Never returns on success; `.inputError` after an `Error:` line when the recorder or the
    /// command cannot be found or exec fails.
    static func run(_ command: [String]) -> ExitCode {
        guard let recorder = FieldCommand.recorder() else { return .inputError }
        guard let program = command.first,
            let path = CommandResolver.resolve(program, searchPath: PremainEnvironment.path.value)
        else {
            Console.error("\(TextSafety.display(command.first ?? "")): command not found")
            return .inputError
        }
        LosslessUTF8.withCString(auditList(recorder: recorder, existing: PremainEnvironment.audit.value)) {
            _ = setenv(PremainEnvironment.audit.name, $0, 1)
        }
        var arguments: [UnsafeMutablePointer<CChar>?] = command.map { argument in
            LosslessUTF8.withCString(argument) { strdup($0) }
        }
        arguments.append(nil)
        let pid = getpid()
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let stamp = "\(Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)):\(pid)"
        setenv("PREMAIN_T0", stamp, 1)
        LosslessUTF8.withCString(path) { _ = execv($0, &arguments) }
        let reason = String(cString: strerror(errno)).lowercased()
        Console.error("\(TextSafety.display(path)): cannot run: \(reason)")
        return .inputError
    }

    /// LD_AUDIT for the command: the recorder, then the entries of `existing` (colon-separated)
    /// other than the recorder itself.
    static func auditList(recorder: String, existing: String?) -> String {
        let others = (existing ?? "").split(separator: ":").filter { $0 != recorder[...] }
        return ([recorder] + others.map(String.init)).joined(separator: ":")
    }
}
