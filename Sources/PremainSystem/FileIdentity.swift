#if canImport(Glibc)
    import Glibc
#endif

/// Which file a path names, to tell when two names are one file: an output that is also an
/// input, or two outputs that would write the same file.
///
/// An existing file is its device and inode (symlinks followed), so a hard link, a symlink or
/// `./X` is the same file. A file that does not exist yet is its folder's device and inode and
/// its name; when the folder does not exist either, the path as written with `.` and repeated
/// slashes dropped.
public enum FileIdentity: Hashable, Sendable {
    case inode(device: UInt64, inode: UInt64)
    case name(folderDevice: UInt64, folderInode: UInt64, name: String)
    case text(String)

    /// The identity of `path`.
    public init(_ path: String) {
        if let info = LocalFiles.status(path) {
            self = .inode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
            return
        }
        let folder = LocalFiles.directory(of: path)
        let name =
            LocalFiles.lastSlash(in: path).map { String(Substring(path.utf8[path.utf8.index(after: $0)...])) }
            ?? path
        if !name.isEmpty, name != ".", name != "..", let info = LocalFiles.status(folder) {
            self = .name(folderDevice: UInt64(info.st_dev), folderInode: UInt64(info.st_ino), name: name)
        } else {
            let parts = path.split(separator: "/").filter { $0 != "." }
            self = .text((path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/"))
        }
    }
}
