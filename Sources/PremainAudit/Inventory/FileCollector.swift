import Dispatch
import LosslessText
import PremainModel
import PremainSystem
import Synchronization

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
        /// Folders that could not be listed, and entries of folders that could not be looked at
        /// (a path over PATH_MAX, no search permission), with the reason.
        public var unreadable: [FileError]
        /// What the folder walks left out.
        public var skipped = SkippedFiles()
    }

    /// `progress` hears of the walk from its start: `.walking` after each folder listed (files
    /// found so far), then `.sorting` as the files' first bytes are read.
    public static func collect(
        _ paths: [String], options: Options = .init(), progress: (@Sendable (AuditProgress) -> Void)? = nil
    ) -> Collected {
        var result = Collected(files: [], fromFolders: [], unreadable: [])
        var seen = Set<FileID>()
        for path in paths {
            guard let info = LocalFiles.status(path) else {
                // Missing or unreadable: the audit reports it.
                result.files.append(path)
                continue
            }
            if info.st_mode & S_IFMT == S_IFDIR {
                seen.insert(FileID(info))
                var found: [Found] = []
                progress?(.walking(files: 0))
                walk(path, into: &found, result: &result, seen: &seen, progress: progress)
                sort(found, options: options, into: &result, progress: progress)
            } else if seen.insert(FileID(info)).inserted {
                result.files.append(path)
                result.sizes[path] = Int(info.st_size)
            }
        }
        return result
    }

    /// A regular file found below a folder, before its first bytes are read.
    struct Found {
        var path: String
        var size: Int
    }

    struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// Lists `folder` recursively into `found`: its regular files in name order, then those of
    /// its subfolders (each file and folder once, by device and inode).
    private static func walk(
        _ folder: String, into found: inout [Found], result: inout Collected, seen: inout Set<FileID>,
        progress: (@Sendable (AuditProgress) -> Void)?
    ) {
        let names: [String]
        switch LocalFiles.entries(of: folder) {
        case .success(let listed): names = listed
        case .failure(let error):
            result.unreadable.append(FileError(path: folder, reason: .unreadable, message: error.message))
            return
        }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        var subfolders: [String] = []
        for name in names.sorted() {
            let path = base + name
            guard let info = LocalFiles.linkStatus(path) else {
                // Gone since the listing: nothing to read. Anything else (a path longer than
                // PATH_MAX, a folder without search permission) would leave a file out unseen.
                let code = errno
                if code != ENOENT {
                    result.unreadable.append(
                        FileError(path: path, reason: .unreadable, message: Self.message(code, path)))
                }
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if seen.insert(FileID(info)).inserted { subfolders.append(path) }
            case S_IFREG:
                if seen.insert(FileID(info)).inserted { found.append(Found(path: path, size: Int(info.st_size))) }
            default:
                continue  // symlinks, devices, sockets, FIFOs
            }
        }
        progress?(.walking(files: found.count))
        for subfolder in subfolders { walk(subfolder, into: &found, result: &result, seen: &seen, progress: progress) }
    }

    /// Why `path` could not be looked at: the `strerror` text, lowercase, with the length for a
    /// path over PATH_MAX.
    static func message(_ code: Int32, _ path: String) -> String {
        let text = String(cString: strerror(code)).lowercased()
        guard code == ENAMETOOLONG else { return text }
        return
            "\(text): the path has \(LosslessUTF8.bytes(path).count) bytes, PATH_MAX allows \(PATH_MAX - 1); not read"
    }

    /// Reads the first bytes of every file `found` (on all cores: a system folder holds
    /// thousands, most of them not ELF) and keeps, counts or skips each, in `found`'s order.
    private static func sort(
        _ found: [Found], options: Options, into result: inout Collected,
        progress: (@Sendable (AuditProgress) -> Void)? = nil
    ) {
        let signatures = signatures(of: found.map(\.path), progress: progress)
        for (file, signature) in zip(found, signatures) {
            switch signature {
            case .linked, .unreadable:
                // An unreadable file is kept so that the audit says why.
                result.files.append(file.path)
                result.fromFolders.insert(file.path)
                result.sizes[file.path] = file.size
            case .object where options.includeObjects:
                result.files.append(file.path)
                result.fromFolders.insert(file.path)
                result.sizes[file.path] = file.size
            case .object:
                result.skipped.addObject(file.path)
            case .json where options.reports:
                result.reports.append(file.path)
            case .json, .other:
                result.skipped.others += 1
            }
        }
    }

    /// `FileSignature.read` of each path, in order; chunks of paths are read on all cores.
    static func signatures(
        of paths: [String], progress: (@Sendable (AuditProgress) -> Void)? = nil
    ) -> [FileSignature] {
        let chunk = 64
        let chunks = (paths.count + chunk - 1) / chunk
        let workers = min(BatchAudit.processorCount, chunks)
        guard workers > 1 else {
            progress?(.sorting(done: 0, total: paths.count))
            return paths.map(FileSignature.read)
        }
        let read = Mutex<[[FileSignature]]>(Array(repeating: [], count: chunks))
        let next = Atomic<Int>(0)
        let done = Atomic<Int>(0)
        progress?(.sorting(done: 0, total: paths.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < chunks else { return }
                let part = paths[(index * chunk)..<min(paths.count, (index + 1) * chunk)].map(FileSignature.read)
                read.withLock { $0[index] = part }
                let finished = done.wrappingAdd(part.count, ordering: .relaxed).newValue
                progress?(.sorting(done: finished, total: paths.count))
            }
        }
        return read.withLock { $0.flatMap { $0 } }
    }
}

/// How far a batch audit has got, for a progress display: from the first folder listed to the
/// last file audited, so no step runs silent.
public enum AuditProgress: Sendable, Equatable {
    /// Listing folders: regular files found so far (the total is not known yet).
    case walking(files: Int)
    /// Reading the first bytes of the files found, to keep ELF programs and libraries.
    case sorting(done: Int, total: Int)
    /// Auditing the files kept.
    case auditing(done: Int, total: Int)
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
    static let executable: UInt16 = 2  // ET_EXEC
    static let shared: UInt16 = 3  // ET_DYN

    static func read(_ path: String) -> FileSignature {
        guard let head = LocalFiles.head(path, count: 64) else { return .unreadable }
        return classify(head[...], name: path)
    }

    /// Classifies the first bytes of a file named `name`.
    static func classify(_ head: ArraySlice<UInt8>, name: String) -> FileSignature {
        let bytes = Array(head)
        if bytes.count >= 4, bytes[0] == 0x7F, bytes[1] == UInt8(ascii: "E"), bytes[2] == UInt8(ascii: "L"),
            bytes[3] == UInt8(ascii: "F")
        {
            guard bytes.count >= 18 else { return .other }
            // EI_DATA: 1 little-endian, 2 big-endian; e_type at offset 16 in both classes.
            let type =
                bytes[5] == 2 ? UInt16(bytes[16]) << 8 | UInt16(bytes[17]) : UInt16(bytes[17]) << 8 | UInt16(bytes[16])
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
