import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What is at a history database's path, asked of the file system before SQLite is let near it:
/// SQLite would wait for ever to open a FIFO, create `/dev/null-journal` beside a device, and
/// fall back to read-only without a word on a file it may not write (then leave `-wal` and
/// `-shm` behind when the first write fails). premain never opens the database file itself:
/// closing any descriptor of a file drops the POSIX locks that every SQLite connection of the
/// process holds on it.
struct DatabaseFile: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var changed: timespec

    /// The regular file at `path`, or `nil` when nothing is there. Throws `.cannotOpen`, naming
    /// what is there instead, for a folder, a FIFO, a device or a socket (also as its `-wal`,
    /// `-shm` or `-journal`); and, `forWriting`, when
    /// this process may not write the file, or the folder that holds it and SQLite's `-wal` and
    /// `-shm` files (with the system's reason: permission denied, read-only file system, an
    /// immutable file).
    static func look(at path: String, forWriting: Bool) throws(HistoryError) -> DatabaseFile? {
        // SQLite opens its -wal, -shm and -journal by name too: a FIFO there would hang it.
        for side in [path + "-wal", path + "-shm", path + "-journal"] {
            guard let sideInfo = LocalFiles.status(side), sideInfo.st_mode & S_IFMT != S_IFREG else { continue }
            let what = sideInfo.st_mode & S_IFMT == S_IFDIR ? "a folder" : typeName(sideInfo.st_mode)
            throw HistoryError(
                .cannotOpen, "\(side): not a regular file (\(what)) beside the history database; move it away")
        }
        guard let info = LocalFiles.status(path) else {
            let code = errno
            guard code == ENOENT else {
                throw HistoryError(.cannotOpen, "\(path): cannot open the history database (\(reason(code)))")
            }
            if forWriting, let problem = notWritable(LocalFiles.directory(of: path)) {
                throw HistoryError(.cannotOpen, "\(path): cannot create the history database (\(problem))")
            }
            return nil
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw HistoryError(.cannotOpen, "\(path): a folder, not a history database")
        default:
            throw HistoryError(
                .cannotOpen, "\(path): not a regular file (\(typeName(info.st_mode))), so not a history database")
        }
        if forWriting {
            // SQLite writes beside the file: its -wal and -shm, which a folder it may not write
            // refuses unless both are there already.
            let sides = [path + "-wal", path + "-shm"]
            let folderProblem =
                sides.allSatisfy { LocalFiles.isAccessible($0, F_OK) }
                ? nil : notWritable(LocalFiles.directory(of: path))
            if let problem = notWritable(path) ?? folderProblem {
                throw HistoryError(.cannotOpen, "\(path): cannot write the history database (\(problem))")
            }
        }
        return DatabaseFile(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: info.st_mtim, changed: info.st_ctim)
    }

    /// The size of the file at `path` (a `-wal` or `-shm` beside the database); `nil` when there
    /// is none.
    static func size(of path: String) -> Int64? {
        LocalFiles.status(path).map { Int64($0.st_size) }
    }

    /// `true` when the file at `path` is still this one, unchanged: same inode, size and times.
    func isCurrent(at path: String) -> Bool {
        guard let info = LocalFiles.status(path) else { return false }
        return DatabaseFile(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: info.st_mtim, changed: info.st_ctim) == self
    }

    static func == (left: DatabaseFile, right: DatabaseFile) -> Bool {
        left.device == right.device && left.inode == right.inode && left.size == right.size
            && left.modified.tv_sec == right.modified.tv_sec && left.modified.tv_nsec == right.modified.tv_nsec
            && left.changed.tv_sec == right.changed.tv_sec && left.changed.tv_nsec == right.changed.tv_nsec
    }

    /// Why this process may not write `path` (lowercase, as `strerror` says it); `nil` when it may.
    private static func notWritable(_ path: String) -> String? {
        faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 ? nil : reason(errno)
    }

    private static func reason(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }

    /// "a FIFO", "a character device", … for a `st_mode` that is not a regular file or folder.
    static func typeName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "of unknown type"
        }
    }
}
