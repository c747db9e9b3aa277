import Glibc
import PremainSystem
import Synchronization

/// A private null device whose first write an inotify watch sees: the target's stdout when its
/// bytes are not needed (a write costs what a write to /dev/null costs).
///
/// The node (a character node 1:3) is made in a fresh folder, opened, and unlinked at once:
/// nothing of it stays on disk, even when premain is killed, and the kernel frees it with the
/// last descriptor. One sink serves every launch of a `ProcessLauncher`: the watch is armed
/// (`IN_MODIFY`) before each launch and disarmed at the first write by changing its mask, never
/// removed. A watch per launch made short programs slower: closing an inotify descriptor whose
/// watch is still there (a program that never writes) waits about 14 ms for the kernel to free
/// the watch (an SRCU grace period), the target's CPU idles that long before the next launch,
/// and a program started on a CPU idle for 12 ms runs slower (`bash -c true`: about 0.2 ms, on
/// a virtual machine). A launch that finds the sink taken by another thread makes its own and
/// pays that wait once.
final class NullDeviceSink: Sendable {
    /// The node, open for writing (it keeps the node alive; each launch opens its own).
    let device: Int32
    /// The inotify descriptor: readable once the armed watch has seen a write.
    let watchFD: Int32
    /// How the unlinked node is named when its watch's mask changes or it is opened again.
    private let devicePath: String
    /// True while a launch uses the sink (launches on other threads make their own).
    private let inUse = Mutex(false)

    /// Major 1, minor 3: /dev/null on Linux (Documentation/admin-guide/devices.txt), in the
    /// kernel's dev_t encoding (glibc's `makedev` is a macro Swift cannot call).
    static let nullDevice: dev_t = (1 << 8) | 3

    /// The mask of a disarmed watch: the node is unlinked already, so its link count never
    /// drops to 0 again and the event never comes.
    static let disarmedMask = UInt32(IN_DELETE_SELF)

    private init(device: Int32, watchFD: Int32) {
        self.device = device
        self.watchFD = watchFD
        devicePath = "/proc/self/fd/\(device)"
    }

    deinit {
        close(watchFD)
        close(device)
    }

    /// A sink made in `folder` (which it leaves as it found it), its watch disarmed; `nil` when
    /// the node cannot be made (no CAP_MKNOD, a `nodev` file system) or watched.
    static func make(in folder: String) -> NullDeviceSink? {
        let path = folder + "/null"
        guard mknod(path, S_IFCHR | 0o600, nullDevice) == 0 else { return nil }
        defer { unlink(path) }
        let device = open(path, O_WRONLY | O_CLOEXEC)
        guard device >= 0 else { return nil }
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard LocalFiles.status(descriptor: device)?.st_rdev == nullDevice, watch >= 0,
            inotify_add_watch(watch, path, disarmedMask) >= 0
        else {
            close(device)
            if watch >= 0 { close(watch) }
            return nil
        }
        return NullDeviceSink(device: device, watchFD: watch)
    }

    /// A sink in a folder of its own under `$TMPDIR` (removed at once); `nil` as for `make(in:)`.
    static func make() -> NullDeviceSink? {
        guard case .success(let folder) = LocalFiles.makeTemporaryFolder("null") else { return nil }
        defer { LocalFiles.removeFolderAndFiles(folder) }
        return make(in: folder)
    }

    /// Takes the sink for one launch; false when another launch has it.
    func claim() -> Bool {
        inUse.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
    }

    /// Gives the sink back after a launch (its watch disarmed).
    func release() {
        disarm()
        inUse.withLock { $0 = false }
    }

    /// A new open file description of the node for one launch's stdout (so that flags a
    /// target sets on it, `O_NONBLOCK` say, do not pass to the next launch); -1 on failure.
    func openForWriting() -> Int32 {
        open(devicePath, O_WRONLY | O_CLOEXEC)
    }

    /// Drops the events of earlier launches and watches for the next write; false when the
    /// watch cannot be changed.
    func arm() -> Bool {
        var event = [UInt8](repeating: 0, count: 4096)
        while event.withUnsafeMutableBytes({ read(watchFD, $0.baseAddress, $0.count) }) > 0 {}
        return setMask(UInt32(IN_MODIFY))
    }

    /// Stops reporting writes: later writes cost what writes to /dev/null cost.
    func disarm() {
        _ = setMask(Self.disarmedMask)
    }

    /// Replaces the mask of the existing watch (its mark is kept: nothing for the kernel to free).
    private func setMask(_ mask: UInt32) -> Bool {
        inotify_add_watch(watchFD, devicePath, mask) >= 0
    }
}
