import Glibc

/// Where a launch's stdout and stderr go while their first byte is timed.
///
/// stdout goes to a private null device (`NullDeviceSink`) whose watch sees the first write:
/// a write costs what a write to /dev/null costs. When the node cannot be made (no CAP_MKNOD,
/// a `nodev` /tmp) or the bytes themselves are needed (`--show-output`, `--ready`), stdout is
/// a pipe instead. stderr is always a pipe: programs write little there, and its first bytes
/// explain failures.
struct OutputCapture {
    /// The descriptors the child gets as 1 and 2.
    private(set) var stdoutWrite: Int32 = -1
    private(set) var stderrWrite: Int32 = -1
    /// Read ends; `stdoutRead` is -1 with the null device.
    private(set) var stdoutRead: Int32 = -1
    private(set) var stderrRead: Int32 = -1
    /// The null device's inotify descriptor, readable at its first write; -1 with a pipe.
    var watchFD: Int32 { sink?.watchFD ?? -1 }
    /// The null device, while this launch has it.
    private var sink: NullDeviceSink?
    /// True when stdout went to the private null device.
    let isNullDevice: Bool

    /// F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7), which Glibc's module does not export.
    static let setPipeSize: Int32 = 1024 + 7

    /// Bytes a pipe holds before the writer blocks (the kernel's default is 64 KiB).
    static let pipeCapacity: Int32 = 1 << 20

    /// `shared` is the launcher's sink, used when no other launch has it; otherwise a sink of
    /// this launch's own is made in `folder`.
    init(shared: NullDeviceSink?, folder: String, needBytes: Bool) throws(LaunchError) {
        var chosen: NullDeviceSink?
        if !needBytes {
            if let shared, shared.claim() {
                if shared.arm() { chosen = shared } else { shared.release() }
            }
            if chosen == nil, let own = NullDeviceSink.make(in: folder), own.arm() { chosen = own }
            if let device = chosen?.openForWriting(), device >= 0 {
                stdoutWrite = device
            } else {
                chosen?.release()
                chosen = nil
            }
        }
        sink = chosen
        isNullDevice = chosen != nil
        if chosen == nil {
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
    mutating func stopWatching() {
        sink?.disarm()
    }

    mutating func closeAll() {
        closeChildEnds()
        releaseSink()
        for fd in [stdoutRead, stderrRead] where fd >= 0 { close(fd) }
        stdoutRead = -1
        stderrRead = -1
    }

    /// Gives the sink back (a launch's own is closed when the last reference goes).
    private mutating func releaseSink() {
        sink?.release()
        sink = nil
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
