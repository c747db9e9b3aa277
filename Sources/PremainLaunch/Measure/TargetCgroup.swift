import CTrace
import Glibc
import PremainSystem

/// A cgroup v2 folder that holds every target and everything it starts: a process that
/// double-forks and calls `setsid` leaves its process group but not its cgroup, so a run can
/// end with nothing of it left (`cgroup.kill`, Linux 5.14). One per launch (so that launches
/// running side by side never end each other's processes), under premain's own cgroup, when the
/// unified hierarchy is writable (root); otherwise launches fall back to process groups and the
/// child-subreaper scan. The interrupt handler and the watchdog know the current one.
public final class TargetCgroup: Sendable {
    /// The folder, e.g. `/sys/fs/cgroup/unified/premain-4242-7`.
    public let path: String
    /// `cgroup.procs`, open for writing: the child writes "0" to it before exec to join.
    let procsFD: Int32

    private init(path: String, procsFD: Int32) {
        self.path = path
        self.procsFD = procsFD
    }

    private static let counter = AtomicPID()

    /// A new cgroup for one launch; `nil` where none can be made (not root, no cgroup v2).
    static func make() -> TargetCgroup? {
        guard let parent = parentFolder else { return nil }
        let path = parent + "/premain-\(getpid())-\(counter.next())"
        guard mkdir(path, 0o755) == 0, LocalFiles.isAccessible(path + "/cgroup.kill", W_OK) else {
            rmdir(path)
            return nil
        }
        let procs = open(path + "/cgroup.procs", O_WRONLY | O_CLOEXEC)
        guard procs >= 0 else {
            rmdir(path)
            return nil
        }
        ctrace_guard_cgroup(path)
        return TargetCgroup(path: path, procsFD: procs)
    }

    /// premain's own cgroup folder when cgroups can be made under it.
    private static let parentFolder: String? = {
        guard getuid() == 0, let root = unifiedMount(), let own = ownPath() else { return nil }
        return (root + own).replacingSuffix("/")
    }()

    /// Removes the (empty) folder once the launch is reaped.
    func remove() {
        close(procsFD)
        rmdir(path)
        ctrace_guard_cgroup(nil)
    }

    /// Pids in the cgroup now.
    public func members() -> [pid_t] {
        guard let text = LocalFiles.readText(path + "/cgroup.procs", limit: 1 << 20) else { return [] }
        return text.split(separator: "\n").compactMap { pid_t($0) }
    }

    /// Kills every process in it.
    func killAll() {
        let fd = open(path + "/cgroup.kill", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = write(fd, "1", 1)
        close(fd)
    }

    /// Where the cgroup v2 hierarchy is mounted (`/sys/fs/cgroup` or, on hybrid systems,
    /// `/sys/fs/cgroup/unified`), from /proc/self/mountinfo.
    static func unifiedMount() -> String? {
        guard let text = LocalFiles.readText("/proc/self/mountinfo", limit: 1 << 20) else { return nil }
        for line in text.split(separator: "\n") {
            // "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPER"
            guard let dash = line.firstRange(of: " - ") else { continue }
            let after = line[dash.upperBound...].split(separator: " ")
            let before = line[..<dash.lowerBound].split(separator: " ")
            if after.first == "cgroup2", before.count >= 5, before[3] == "/" { return String(before[4]) }
        }
        return nil
    }

    /// premain's own cgroup v2 path ("0::/PATH" in /proc/self/cgroup).
    static func ownPath() -> String? {
        guard let text = LocalFiles.readText("/proc/self/cgroup", limit: 1 << 16) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) }
    }
}

extension String {
    fileprivate func replacingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
