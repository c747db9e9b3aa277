import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// An environment variable premain reads, declared once with what reads it and what it does:
/// the man page's ENVIRONMENT section is made from these declarations, docs/environment.md
/// lists the same ones (a test compares the two), and no other file calls `getenv`.
public struct EnvironmentVariable: Sendable {
    public let name: String
    /// The commands or the output that read it: `pr --commits`.
    public let readBy: String
    /// What it changes, as a clause: `where the temporary worktrees are made (default /tmp)`.
    public let effect: String

    public init(name: String, readBy: String, effect: String) {
        self.name = name
        self.readBy = readBy
        self.effect = effect
    }

    /// Its value in premain's environment; `nil` when unset or empty. The bytes are kept as
    /// they are (a value that is not UTF-8 is carried losslessly).
    public var value: String? {
        guard let value = getenv(name), value.pointee != 0 else { return nil }
        return LosslessUTF8.string(cString: value)
    }

    /// Its value in `environment` (`NAME=value` entries, as a launched program gets them).
    public func value(in environment: [String]) -> String? {
        let prefix = name + "="
        return environment.last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}

/// Every environment variable premain reads.
public enum PremainEnvironment {
    public static let columns = EnvironmentVariable(
        name: "COLUMNS", readBy: "the text output of every command",
        effect:
            "the width of text reports when stdout is not a terminal (a terminal's own width wins; default 100, at least 40)"
    )
    public static let path = EnvironmentVariable(
        name: "PATH", readBy: "measure, trace and compare (a command given without a slash), and --instructions",
        effect: "where the command to launch and valgrind are looked up (compare --run and pr --run never look in PATH)"
    )
    public static let libraryPath = EnvironmentVariable(
        name: "LD_LIBRARY_PATH", readBy: "audit, check, diff and pr with --honor-env",
        effect:
            "searched for libraries as ld.so would; otherwise ignored, so that the report describes the binary rather than premain's own environment (--library-path gives it explicitly)"
    )
    public static let temporaryFolder = EnvironmentVariable(
        name: "TMPDIR", readBy: "measure, compare, trace, pr and check --verify",
        effect:
            "where temporary folders are made (the loader's debug output of each launch, callgrind's dumps, pr's worktrees, --verify's copies), when it is an absolute path (default /tmp)"
    )
    public static let commit = EnvironmentVariable(
        name: "GITHUB_SHA", readBy: "history add",
        effect: "the commit a report is added for, when --commit is not given and the report names none")
    public static let fieldFolder = EnvironmentVariable(
        name: "PREMAIN_FIELD_DIR",
        readBy: "field report, field env and field compare (and the recorder, libpremain-record.so)",
        effect: "the spool folder of field records, read when no folder is given (default /var/tmp/premain-field)")
    public static let fieldHost = EnvironmentVariable(
        name: "PREMAIN_FIELD_HOST", readBy: "the recorder (libpremain-record.so); set by field run",
        effect:
            "the machine ID (the 32 hex digits of /etc/machine-id, systemd's %m) the recorder hashes into each record's host, instead of reading the file at every launch (5-10 us); anything else is ignored"
    )
    public static let audit = EnvironmentVariable(
        name: "LD_AUDIT", readBy: "field run",
        effect: "kept after the recorder in the LD_AUDIT the command gets (the recorder is put first, once)")

    public static let notifySocket = EnvironmentVariable(
        name: "NOTIFY_SOCKET", readBy: "field run",
        effect:
            "a service manager waits for READY=1 there: field run stays the command's parent, passes its notifications on and records READY=1 as a 'ready' mark"
    )

    /// In the order the man page and docs/environment.md list them.
    public static let all = [
        columns, path, libraryPath, temporaryFolder, commit, fieldFolder, fieldHost, audit, notifySocket,
    ]

    /// `$PREMAIN_FIELD_DIR`, else `/var/tmp/premain-field` (docs/field-record.md).
    public static func fieldDirectory() -> String { fieldFolder.value ?? "/var/tmp/premain-field" }

    /// `$TMPDIR` when it is set to an absolute path, else `/tmp`.
    public static func temporaryDirectory() -> String {
        temporaryFolder.value.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
    }
}
