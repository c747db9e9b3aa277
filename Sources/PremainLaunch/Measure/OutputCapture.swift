import Glibc

/// Where a launch's stdout and stderr go while their first byte is timed.
///
/// stdout goes to a private null device (a character node 1:3 made in the launch's own
/// folder) watched by inotify: a write costs what a write to /dev/null costs, and the watch
/// still sees the first one. When the node cannot be made (no CAP_MKNOD, a `nodev` /tmp) or
/// the bytes themselves are needed (`--show-output`, `--ready`), stdout is a pipe instead.
/// stderr is always a pipe: programs write little there, and its first bytes explain failures.
struct OutputCapture {
    /// The descriptors the child gets as 1 and 2.
    private(set) var stdoutWrite: Int32 = -1
    private(set) var stderrWrite: Int32 = -1
    /// Read ends; `stdoutRead` is -1 with the null device.
    private(set) var stdoutRead: Int32 = -1
    private(set) var stderrRead: Int32 = -1
    /// inotify descriptor watching the null device for its first write; -1 with a pipe.
    private(set) var watchFD: Int32 = -1
    private var watchDescriptor: Int32 = -1
    /// True when stdout went to the private null device.
    let isNullDevice: Bool

    /// Major 1, minor 3: /dev/null on Linux (Documentation/admin-guide/devices.txt), in the
    /// kernel's dev_t encoding (glibc's `makedev` is a macro Swift cannot call).
    static let nullDevice: dev_t = (1 << 8) | 3

    /// F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7), which Glibc's module does not export.
    static let setPipeSize: Int32 = 1024 + 7

    /// Bytes a pipe holds before the writer blocks (the kernel's default is 64 KiB).
    static let pipeCapacity: Int32 = 1 << 20

    init(folder: String, needBytes: Bool) throws(LaunchError) {
        var nullDevice = false
        if !needBytes, let (device, watch, descriptor) = Self.watchedNullDevice(path: folder + "/stdout") {
            stdoutWrite = device
            watchFD = watch
            watchDescriptor = descriptor
            nullDevice = true
        }
        isNullDevice = nullDevice
        if !nullDevice {
            let pipe = try Self.makePipe()
            (stdoutRead, stdoutWrite) = pipe
        }
        do {
            (stderrRead, stderrWrite) = try Self.makePipe()
        } catch {
            closeAll()
            throw error
        }
    }

    /// Closes the child's ends once it has them.
    mutating func closeChildEnds() {
        for fd in [stdoutWrite, stderrWrite] where fd >= 0 { close(fd) }
        stdoutWrite = -1
        stderrWrite = -1
    }

    /// Stops watching the null device (after its first write): later writes cost nothing extra.
    /// The descriptor stays open until `closeAll`: closing an inotify descriptor waits for an
    /// RCU grace period, which would delay the stamps that follow by milliseconds.
    mutating func stopWatching() {
        if watchFD >= 0, watchDescriptor >= 0 { inotify_rm_watch(watchFD, watchDescriptor) }
        watchDescriptor = -1
    }

    mutating func closeAll() {
        closeChildEnds()
        stopWatching()
        if watchFD >= 0 { close(watchFD) }
        watchFD = -1
        for fd in [stdoutRead, stderrRead] where fd >= 0 { close(fd) }
        stdoutRead = -1
        stderrRead = -1
    }

    /// A null device at `path`, opened for writing, and an inotify descriptor that turns
    /// readable at its first write; `nil` when either cannot be made.
    static func watchedNullDevice(path: String) -> (device: Int32, watch: Int32, descriptor: Int32)? {
        guard mknod(path, S_IFCHR | 0o600, nullDevice) == 0 else { return nil }
        let device = open(path, O_WRONLY | O_CLOEXEC)
        guard device >= 0 else { return nil }
        var status = stat()
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        let descriptor = watch >= 0 ? inotify_add_watch(watch, path, UInt32(IN_MODIFY)) : -1
        guard fstat(device, &status) == 0, status.st_rdev == nullDevice, descriptor >= 0 else {
            close(device)
            if watch >= 0 { close(watch) }
            return nil
        }
        return (device, watch, descriptor)
    }

    static func makePipe() throws(LaunchError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            throw LaunchError("cannot create a pipe: \(ProcessLauncher.errorText(errno))")
        }
        // Close-on-exec on both ends (the child gets its own copies by dup2, which clears it).
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        // A large pipe: a program that writes a lot rarely waits for the reader.
        _ = fcntl(fds[1], setPipeSize, pipeCapacity)
        return (fds[0], fds[1])
    }
}
