import PremainModel
import PremainSystem

#if canImport(Glibc)
import Glibc
#endif

/// Expands the paths given to `premain audit` into the files to audit.
///
/// A path named on the command line is taken as it is (symlinks followed). A folder is walked
/// recursively: regular files below it are collected, symbolic links below it are not
/// followed (so no loop can form; the files they point to inside the tree are audited under
/// their own names), and a file reached twice (hard links, or a folder given twice) is
/// collected once. Files are returned in path order per folder.
public enum FileCollector {
    public struct Collected: Sendable, Equatable {
        /// Files to audit, in order.
        public var files: [String]
        /// Which of `files` were found by walking a folder (their non-ELF errors are quiet).
        public var fromFolders: Set<String>
        /// Folders that could not be read, with the reason.
        public var unreadable: [FileError]
    }

    public static func collect(_ paths: [String]) -> Collected {
        var result = Collected(files: [], fromFolders: [], unreadable: [])
        var seen = Set<FileID>()
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                // Missing or unreadable: the audit reports it.
                result.files.append(path)
                continue
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                walk(path, into: &result, seen: &seen)
            } else if seen.insert(FileID(info)).inserted {
                result.files.append(path)
            }
        }
        return result
    }

    struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    private static func walk(_ folder: String, into result: inout Collected, seen: inout Set<FileID>) {
        let names: [String]
        switch LocalFiles.entries(of: folder) {
        case .success(let found): names = found
        case .failure(let error):
            result.unreadable.append(FileError(path: folder, reason: .unreadable, message: error.message))
            return
        }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        var subfolders: [String] = []
        for name in names.sorted() {
            let path = base + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if seen.insert(FileID(info)).inserted { subfolders.append(path) }
            case S_IFREG:
                if info.st_size >= 4, seen.insert(FileID(info)).inserted {
                    result.files.append(path)
                    result.fromFolders.insert(path)
                }
            default:
                continue  // symlinks, devices, sockets, FIFOs
            }
        }
        for subfolder in subfolders { walk(subfolder, into: &result, seen: &seen) }
    }
}
