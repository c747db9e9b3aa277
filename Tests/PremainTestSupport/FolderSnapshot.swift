import Foundation

/// Every file of a folder (not recursive) with its bytes and modification time, to assert that
/// a command wrote nothing there: no byte changed, no time moved, no file (`-wal`, `-shm`,
/// `-journal`) appeared or went away.
public struct FolderSnapshot: Equatable, CustomStringConvertible {
    public struct Entry: Equatable {
        public var bytes: Data?
        public var modifiedSeconds: Int
        public var modifiedNanoseconds: Int
    }

    public var entries: [String: Entry]

    /// Reads `folder` now; a name that cannot be read has `bytes == nil` (a FIFO's are never read).
    public init(_ folder: String) {
        entries = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let regular = (info.st_mode & S_IFMT) == S_IFREG
            entries[name] = Entry(
                bytes: regular ? FileManager.default.contents(atPath: path) : nil,
                modifiedSeconds: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec)
        }
    }

    public var description: String {
        entries.keys.sorted().map { "\($0) (\(entries[$0]?.bytes?.count ?? -1) bytes)" }.joined(separator: ", ")
    }
}
