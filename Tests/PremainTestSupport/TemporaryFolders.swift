import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the tests put what they make, so that a run leaves the temporary folder as it found it
/// (CI machines are reused), also when a test fails or the process dies.
///
/// Everything a test process makes goes under `root`, `NSTemporaryDirectory()/premain-tests-PID`:
/// each test still removes its own folder when it ends, and whatever is left (a failed
/// expectation skipped a `defer`-less removal, a helper's build) goes with `root`, removed at
/// exit and, should the process die first (a crash, SIGKILL), by a small watcher process. The
/// builds shared by the two test processes of one `swift test` (`SharedBuild`) are removed the
/// same way once that `swift test` is gone.
public enum TemporaryFolders {
    /// This process's folder, made on first use. Removed at exit, or after the process is gone.
    public static let root: String = {
        let root = NSTemporaryDirectory() + "premain-tests-\(getpid())"
        try? FileManager.default.removeItem(atPath: root)  // a dead process's, with a reused pid
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { TemporaryFolders.removeRoot() }
        removeWhenGone([root], pid: getpid())
        return root
    }()

    /// A fresh folder `root/premain-NAME-UUID`, made.
    public static func make(_ name: String) throws -> String {
        let folder = path(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A fresh path `root/premain-NAME-UUID` (not made), for a file or a folder the test makes.
    public static func path(_ name: String) -> String {
        root + "/premain-\(name)-\(UUID().uuidString)"
    }

    private static func removeRoot() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Starts a watcher, in a session of its own (a Ctrl-C of the run does not stop it), that
    /// removes `paths` once process `pid` has exited (gone, or a zombie). It first closes every
    /// descriptor it inherited: Foundation's `Process` takes the end of its socket for the exit
    /// (and a test runner's pipe would wait for it too). Nothing happens when it cannot start.
    public static func removeWhenGone(_ paths: [String], pid: pid_t) {
        let script = """
            for fd in /proc/$$/fd/*; do n=${fd##*/}; if [ "$n" -gt 2 ]; then eval "exec $n>&-"; fi; done 2>/dev/null
            while [ -r "/proc/$0/stat" ] && [ "$(sed 's/.*) //' "/proc/$0/stat" | cut -d' ' -f1)" != Z ]; do sleep 0.5; done
            rm -rf -- "$@"
            """
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        watcher.arguments = ["-f", "/bin/bash", "-c", script, String(pid)] + paths
        watcher.standardInput = FileHandle.nullDevice
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        guard (try? watcher.run()) != nil else { return }
        watcher.waitUntilExit()  // setsid -f returns at once; the socket closes with the descriptors
    }
}
