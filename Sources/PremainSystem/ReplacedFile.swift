import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// Writes a file as git and SQLite do, atomic or nothing: the bytes go to a temporary file in
/// the target's folder, which is flushed (`fsync`) and renamed over the target. When anything
/// fails the temporary file is removed and the target is as it was (the previous file intact,
/// or still absent): never a truncated or empty file in its place.
///
/// A target that exists and is not a regular file (`/dev/null`, a FIFO, a terminal) or is named
/// under /dev or /proc (`/dev/stdout` may be a file the shell opened) is written in place, as
/// renaming over it would replace the device or the shell's file instead of writing to it.
public struct ReplacedFile: Sendable {
    /// `write(2)` of up to `count` bytes: the number written, or -1 with `errno` set. Tests
    /// hand in one that fails part-way (a disk that fills up).
    public var writeBytes: @Sendable (_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int
    /// Told the temporary file's path once it exists and `nil` once it is gone (renamed or
    /// removed), so a signal handler can remove it if premain is interrupted in between. Called
    /// with the signals blocked around the file's creation.
    public var guardTemporary: @Sendable (String?) -> Void

    public init(
        writeBytes: @escaping @Sendable (Int32, UnsafeRawPointer, Int) -> Int = { Glibc.write($0, $1, $2) },
        guardTemporary: @escaping @Sendable (String?) -> Void = { _ in }
    ) {
        self.writeBytes = writeBytes
        self.guardTemporary = guardTemporary
    }

    /// Why a file was not written.
    public enum Failure: Error, Equatable, Sendable {
        /// A system call failed with this `errno` (the target is as it was).
        case system(Int32)
        /// `produce` threw: the content could not be made (the target is as it was).
        case content(String)
    }

    /// Writes what `produce` hands to its `write` (in as many pieces as it likes) to `path`.
    /// `produce` returns `false` to give up without an error of its own (a write it was handed
    /// already failed): the target is then left as it was. Returns `nil` when the file was
    /// written and renamed into place.
    public func write(
        to path: String, _ produce: (_ write: (UnsafeRawBufferPointer) -> Bool) throws -> Bool
    ) -> Failure? {
        let target = LocalFiles.status(path)
        if Self.isSpecialName(path) || target.map({ $0.st_mode & S_IFMT != S_IFREG }) == true {
            return writeInPlace(path, produce)
        }
        // A symlink is written through: the file it names is replaced, the link stays.
        let final = target != nil ? (LocalFiles.realPath(path) ?? path) : path
        let folder = LocalFiles.directory(of: final)
        guard let (temporary, fd) = createTemporary(in: folder) else { return .system(errno) }
        if let target {
            // The replaced file's permissions and, when premain may give them, its owners.
            _ = fchmod(fd, target.st_mode & 0o7777)
            if geteuid() == 0 { _ = fchown(fd, target.st_uid, target.st_gid) }
        }
        var failure = fill(fd, produce)
        if failure == nil, fsync(fd) != 0 { failure = .system(errno) }
        if close(fd) != 0, failure == nil, errno != EINTR { failure = .system(errno) }
        if failure == nil,
            LosslessUTF8.withCString(temporary, { from in LosslessUTF8.withCString(final) { rename(from, $0) } }) != 0
        {
            failure = .system(errno)
        }
        if failure != nil { _ = LosslessUTF8.withCString(temporary) { unlink($0) } }
        guardTemporary(nil)
        if failure == nil { Self.flushFolder(folder) }
        return failure
    }

    /// `true` for a name under /dev or /proc: written in place, never renamed over.
    static func isSpecialName(_ path: String) -> Bool {
        path.hasPrefix("/dev/") || path.hasPrefix("/proc/")
    }

    /// Creates `.premain-output-XXXXXXXXXXXXXXXX` in `folder` (`O_EXCL`, mode 0644 less the
    /// umask) with the signals blocked, and tells `guardTemporary` its path before they are let
    /// through. `nil` with `errno` set when it cannot be made.
    private func createTemporary(in folder: String) -> (path: String, fd: Int32)? {
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer {
            let saved = errno
            pthread_sigmask(SIG_SETMASK, &previous, nil)
            errno = saved
        }
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let path = (folder.hasSuffix("/") ? folder : folder + "/") + ".premain-output-" + suffix
            let fd = LocalFiles.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: 0o644)
            if fd >= 0 {
                guardTemporary(path)
                return (path, fd)
            }
            if errno != EEXIST { return nil }
        }
        return nil
    }

    /// Hands `produce` a writer to `fd`; the failure of a write, of `produce`, or `nil`.
    private func fill(_ fd: Int32, _ produce: (_ write: (UnsafeRawBufferPointer) -> Bool) throws -> Bool) -> Failure? {
        var failure: Failure?
        do {
            let finished = try produce { buffer in
                if let code = writeAll(fd, buffer) { failure = .system(code) }
                return failure == nil
            }
            if failure == nil, !finished { failure = .system(EIO) }
        } catch {
            failure = .content("\(error)")
        }
        return failure
    }

    /// The old way, for devices, FIFOs and /dev, /proc names: open (creating, truncating) and write.
    private func writeInPlace(
        _ path: String, _ produce: (_ write: (UnsafeRawBufferPointer) -> Bool) throws -> Bool
    ) -> Failure? {
        let fd = LocalFiles.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
        guard fd >= 0 else { return .system(errno) }
        var failure = fill(fd, produce)
        if close(fd) != 0, failure == nil, errno != EINTR { failure = .system(errno) }
        return failure
    }

    /// Writes all of `buffer`, retrying after `EINTR` and short writes; the `errno` of the
    /// failure (`ENOSPC` for a write that makes no progress), or `nil`.
    public func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        guard let base = buffer.baseAddress else { return nil }
        var offset = 0
        while offset < buffer.count {
            let written = writeBytes(fd, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return ENOSPC }
            offset += written
        }
        return nil
    }

    /// `fsync` of the folder, so the rename itself survives a crash; failures are ignored (not
    /// every file system syncs folders).
    private static func flushFolder(_ folder: String) {
        let fd = LocalFiles.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
