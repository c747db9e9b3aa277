import PremainModel
import PremainSystem

#if canImport(Glibc)
import Glibc
#endif

/// Expands the paths given to `premain audit`, `check`, `diff` and `pr` into the files to read.
///
/// A path named on the command line is taken as it is (symlinks followed, so a symlinked
/// build folder such as SwiftPM's `.build/release` is walked like the folder it points to). A
/// folder is walked recursively: regular files below it are collected, symbolic links below it
/// are not followed (so no loop can form; the files they point to inside the tree are read
/// under their own names), and a file reached twice (hard links, or a folder given twice) is
/// collected once. Files are returned in path order per folder.
///
/// Below a folder only linked ELF files are kept: executables and shared libraries.
/// Relocatable objects (`.o`, Clang's `.pcm`) are counted and skipped unless
/// `includeObjects`; JSON files go to `reports` when asked for (`check`, `diff`), else are
/// skipped with everything else that is not ELF. A file named on the command line is always
/// kept, whatever it is.
public enum FileCollector {
    /// What to keep besides executables and shared libraries.
    public struct Options: Sendable, Equatable {
        /// Keep relocatable objects found in folders.
        public var includeObjects: Bool
        /// Collect files in folders that look like JSON (`*.json`, or text starting with `{`)
        /// into `reports`.
        public var reports: Bool

        public init(includeObjects: Bool = false, reports: Bool = false) {
            self.includeObjects = includeObjects
            self.reports = reports
        }
    }

    public struct Collected: Sendable, Equatable {
        /// Files to audit, in order.
        public var files: [String]
        /// The size in bytes of each of `files` that could be `stat`ed, from the `stat` the
        /// collection made (a batch audit takes the largest first).
        public var sizes: [String: Int] = [:]
        /// Which of `files` were found by walking a folder (their non-ELF errors are quiet).
        public var fromFolders: Set<String>
        /// JSON files found in folders, in order; `[]` unless `Options.reports`.
        public var reports: [String] = []
        /// Folders that could not be read, with the reason.
        public var unreadable: [FileError]
        /// What the folder walks left out.
        public var skipped = SkippedFiles()
    }

    public static func collect(_ paths: [String], options: Options = .init()) -> Collected {
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
                seen.insert(FileID(info))
                walk(path, options: options, into: &result, seen: &seen)
            } else if seen.insert(FileID(info)).inserted {
                result.files.append(path)
                result.sizes[path] = Int(info.st_size)
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

    private static func walk(_ folder: String, options: Options, into result: inout Collected, seen: inout Set<FileID>) {
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
                guard seen.insert(FileID(info)).inserted else { continue }
                switch FileSignature.read(path) {
                case .linked, .unreadable:
                    // An unreadable file is kept so that the audit says why.
                    result.files.append(path)
                    result.fromFolders.insert(path)
                    result.sizes[path] = Int(info.st_size)
                case .object where options.includeObjects:
                    result.files.append(path)
                    result.fromFolders.insert(path)
                    result.sizes[path] = Int(info.st_size)
                case .object:
                    result.skipped.addObject(path)
                case .json where options.reports:
                    result.reports.append(path)
                case .json, .other:
                    result.skipped.others += 1
                }
            default:
                continue  // symlinks, devices, sockets, FIFOs
            }
        }
        for subfolder in subfolders { walk(subfolder, options: options, into: &result, seen: &seen) }
    }
}

/// What a file is, from its first bytes: enough to leave a build folder's intermediate files
/// out without reading them whole.
enum FileSignature: Equatable {
    /// An ELF executable or shared library (`ET_EXEC`, `ET_DYN`).
    case linked
    /// An ELF relocatable object (`ET_REL`).
    case object
    /// A `*.json` file, or one whose first non-blank byte is `{`.
    case json
    /// Anything else: not ELF, an ELF core file, under 4 bytes.
    case other
    /// The file could not be opened or read.
    case unreadable

    static let relocatable: UInt16 = 1  // ET_REL
    static let executable: UInt16 = 2   // ET_EXEC
    static let shared: UInt16 = 3       // ET_DYN

    static func read(_ path: String) -> FileSignature {
        guard let head = LocalFiles.head(path, count: 64) else { return .unreadable }
        return classify(head[...], name: path)
    }

    /// Classifies the first bytes of a file named `name`.
    static func classify(_ head: ArraySlice<UInt8>, name: String) -> FileSignature {
        let bytes = Array(head)
        if bytes.count >= 4, bytes[0] == 0x7F, bytes[1] == UInt8(ascii: "E"), bytes[2] == UInt8(ascii: "L"), bytes[3] == UInt8(ascii: "F") {
            guard bytes.count >= 18 else { return .other }
            // EI_DATA: 1 little-endian, 2 big-endian; e_type at offset 16 in both classes.
            let type = bytes[5] == 2 ? UInt16(bytes[16]) << 8 | UInt16(bytes[17]) : UInt16(bytes[17]) << 8 | UInt16(bytes[16])
            switch type {
            case executable, shared: return .linked
            case relocatable: return .object
            default: return .other
            }
        }
        if name.hasSuffix(".json") { return .json }
        let firstNonBlank = bytes.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
        return firstNonBlank == UInt8(ascii: "{") ? .json : .other
    }
}
