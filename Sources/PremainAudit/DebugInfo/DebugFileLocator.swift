import ELFKit
import LosslessText
import PremainSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Finds the file that holds an object's DWARF: the object itself, a debug file by build-id
/// (`<dir>/.build-id/xx/yyyy.debug`), or one named by `.gnu_debuglink`.
public struct DebugFileLocator: Sendable, Equatable {
    /// Searched first, in order (from `--debug-dir`), then `/usr/lib/debug`.
    public var directories: [String]

    public init(extraDirectories: [String] = []) {
        directories = extraDirectories + ["/usr/lib/debug"]
    }

    /// The path of the file with DWARF for `file`, or `nil` when none is found.
    public func debugFile(for file: ELFFile) -> String? {
        if file.section(named: ".debug_info") != nil { return file.path }
        for candidate in candidates(for: file, inExistingFolders: true) where LocalFiles.isReadableFile(candidate) {
            return candidate
        }
        return nil
    }

    /// Every place looked at, in order (for diagnostics and tests).
    public func candidates(for file: ELFFile) -> [String] {
        candidates(for: file, inExistingFolders: false)
    }

    /// The candidates; with `inExistingFolders`, only those whose folder exists (each folder
    /// asked once per locator), so that a file without a debug package costs a few look-ups
    /// in a memo rather than a dozen `stat`s and a `realpath`.
    private func candidates(for file: ELFFile, inExistingFolders: Bool) -> [String] {
        var paths: [String] = []
        func add(folder: String, name: Substring) {
            if !inExistingFolders || folders.exists(folder) { paths.append(folder + "/" + name) }
        }
        if let id = file.buildID, id.count > 2 {
            let split = id.index(id.startIndex, offsetBy: 2)
            for directory in directories {
                add(folder: "\(directory)/.build-id/\(id[..<split])", name: "\(id[split...]).debug")
            }
        }
        if let link = file.debugLink?.name, !link.isEmpty {
            let linkFolder = LocalFiles.directory(of: link)
            let linkName =
                link.utf8.lastIndex(of: UInt8(ascii: "/")).map { link[link.index(after: $0)...] } ?? link[...]
            let joined = { (folder: String) in linkFolder == "." ? folder : folder + "/" + linkFolder }
            let folder = LocalFiles.directory(of: file.path)
            add(folder: joined(folder), name: linkName)
            add(folder: joined(folder + "/.debug"), name: linkName)
            var real: String?
            for directory in directories {
                add(folder: joined(directory), name: linkName)
                add(folder: joined(directory + folder), name: linkName)
                if inExistingFolders && !folders.exists(directory) { continue }
                let resolved = real ?? folders.realFolder(of: file.path)
                real = resolved
                if resolved != folder { add(folder: joined(directory + resolved), name: linkName) }
            }
        }
        // A dozen at most: a linear look-back is cheaper than hashing each path.
        var kept: [String] = []
        for path in paths where path != file.path && !kept.contains(path) { kept.append(path) }
        return kept
    }

    /// Whether each folder a candidate lies in exists, asked once per folder for the life of
    /// this locator (one audit run): a folder audit looks for ~10 candidates per file, in a
    /// handful of folders, most of them missing.
    private let folders = FolderCache()

    public static func == (lhs: DebugFileLocator, rhs: DebugFileLocator) -> Bool {
        lhs.directories == rhs.directories
    }

    private final class FolderCache: Sendable {
        // Keyed by the paths' bytes (`ByteKey`): hashing a `String` hashes its normalized
        // scalars, several times the cost, for every candidate of every file.
        private let known = Mutex<[ByteKey: Bool]>([:])
        private let real = Mutex<[ByteKey: String]>([:])

        /// The folder of `path` with symlinks resolved (`realpath` of the file's folder, once
        /// per folder, when the file itself is not a symlink).
        func realFolder(of path: String) -> String {
            LocalFiles.directory(
                of: LocalFiles.realPath(path) { folder in
                    let key = ByteKey(folder)
                    if let known = real.withLock({ $0[key] }) { return known }
                    let resolved = LocalFiles.realPath(folder) ?? folder
                    real.withLock { $0[key] = resolved }
                    return resolved
                })
        }

        func exists(_ path: String) -> Bool {
            let key = ByteKey(path)
            if let answer = known.withLock({ $0[key] }) { return answer }
            let exists = LocalFiles.kind(path) == .folder
            known.withLock { $0[key] = exists }
            return exists
        }
    }
}
