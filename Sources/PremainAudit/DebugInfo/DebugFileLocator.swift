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
    public let directories: [String]

    public init(extraDirectories: [String] = []) {
        directories = extraDirectories + ["/usr/lib/debug"]
        folders = FolderCache(directories: directories)
    }

    /// The path of the file with DWARF for `file`, or `nil` when none is found.
    public func debugFile(for file: ELFFile) -> String? {
        if file.section(named: ".debug_info") != nil { return file.path }
        // The first readable candidate that is not the file itself: repeats of a candidate
        // need no dropping here (the first was not readable), and a path is made a `String`
        // only when its file is there.
        var found: String?
        visitExistingCandidates(for: file) { folder, name, path in
            guard LocalFiles.isReadableFile(bytes: folder, name) else { return true }
            let candidate = path()
            guard candidate != file.path else { return true }
            found = candidate
            return false
        }
        return found
    }

    /// Every place looked at, in order (for diagnostics and tests).
    public func candidates(for file: ELFFile) -> [String] {
        candidates(for: file, inExistingFolders: false)
    }

    /// The candidates; with `inExistingFolders`, only those whose folder exists (each folder
    /// asked once per locator). The plain statement of the search order: `existingCandidates`
    /// gives what this gives with `inExistingFolders`, from what it learnt of the folders.
    func candidates(for file: ELFFile, inExistingFolders: Bool) -> [String] {
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
            let linkName = Self.lastComponent(of: link)
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
        return Self.distinct(paths, without: file.path)
    }

    /// `candidates(for: file, inExistingFolders: true)`, from `visitExistingCandidates`.
    func existingCandidates(for file: ELFFile) -> [String] {
        var paths: [String] = []
        visitExistingCandidates(for: file) { _, _, path in
            paths.append(path())
            return true
        }
        return Self.distinct(paths, without: file.path)
    }

    /// Calls `body` with each of `candidates(for: file, inExistingFolders: true)` in order,
    /// repeats and `file.path` not yet dropped, as the bytes of the path (`LosslessUTF8.bytes`)
    /// in two parts and a maker of the path's `String`; stops when `body` returns `false`.
    ///
    /// Built from memos: which `.build-id/xx` folders exist (by the two hex digits), and for
    /// each folder of a file and folder part of a debuglink, which of the debuglink folders
    /// exist and the folder resolved through symlinks. A file without a debug file then costs
    /// a few `stat`s of paths put together as bytes, where each candidate folder used to be
    /// hashed into a memo and each candidate made a `String`.
    private func visitExistingCandidates(
        for file: ELFFile, _ body: (_ head: [UInt8], _ tail: [UInt8], _ path: () -> String) -> Bool
    ) {
        // The build-id is lowercase hex (`ELFFile.buildID`), so Characters are bytes.
        if let id = file.buildID, id.utf8.count > 2 {
            let split = id.utf8.index(id.utf8.startIndex, offsetBy: 2)
            let digits = id[..<split]
            let slot = Self.hexByte(id.utf8.first, id.utf8[id.utf8.index(after: id.utf8.startIndex)])
            var tail: [UInt8] = []
            for index in directories.indices where folders.buildIDFolderExists(index, digits, slot: slot) {
                if tail.isEmpty {
                    // "xx/yyyy.debug"
                    tail.reserveCapacity(id.utf8.count + 7)
                    tail.append(contentsOf: id.utf8)
                    tail.insert(UInt8(ascii: "/"), at: 2)
                    tail.append(contentsOf: Self.debugSuffix)
                }
                let path = { "\(folders.buildIDRoots[index])\(digits)" + "/" + "\(id[split...]).debug" }
                guard body(folders.buildIDRootBytes[index], tail, path) else { return }
            }
        }
        guard let link = file.debugLink?.name, !link.isEmpty else { return }
        let linkName = Self.lastComponent(of: link)
        // "/" and the name's bytes: those after the link's last "/" byte (a raw byte is never
        // one).
        var nameBytes = LosslessUTF8.bytes(link)
        let start = nameBytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        nameBytes.replaceSubrange(0..<start, with: CollectionOfOne(UInt8(ascii: "/")))
        let folder = LocalFiles.directory(of: file.path)
        let plan = folders.linkPlan(folder: folder, linkFolder: LocalFiles.directory(of: link))
        var plain: Bool?
        var real: String?
        for step in plan.steps {
            switch step {
            case .folder(let existing, let bytes):
                guard body(bytes, nameBytes, { existing + "/" + linkName }) else { return }
            case .resolved(let index):
                let isPlain = plain ?? LocalFiles.resolvesThroughFolder(file.path)
                plain = isPlain
                if isPlain {
                    guard let (existing, bytes) = plan.plainResolved[index] else { continue }
                    guard body(bytes, nameBytes, { existing + "/" + linkName }) else { return }
                    continue
                }
                let resolved = real ?? folders.realFolder(of: file.path)
                real = resolved
                guard resolved != folder else { continue }
                let candidate = plan.joined(directories[index] + resolved)
                guard folders.exists(candidate) else { continue }
                guard body(LosslessUTF8.bytes(candidate), nameBytes, { candidate + "/" + linkName }) else { return }
            }
        }
    }

    private static let debugSuffix = Array(".debug".utf8)

    /// The byte two lowercase hex digits spell, or `nil`.
    static func hexByte(_ high: UInt8?, _ low: UInt8) -> Int? {
        func value(_ byte: UInt8) -> Int? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a")) + 10
            default: return nil
            }
        }
        guard let high, let top = value(high), let bottom = value(low) else { return nil }
        return top << 4 | bottom
    }

    /// `paths` without `path` and without repeats, in order.
    private static func distinct(_ paths: [String], without path: String) -> [String] {
        // A dozen at most: a linear look-back is cheaper than hashing each path.
        var kept: [String] = []
        for candidate in paths where candidate != path && !kept.contains(candidate) { kept.append(candidate) }
        return kept
    }

    /// The part of `path` after its last "/" (all of it without one).
    static func lastComponent(of path: String) -> Substring {
        LocalFiles.lastSlash(in: path).map { path[path.utf8.index(after: $0)...] } ?? path[...]
    }

    /// Whether each folder a candidate lies in exists, asked once per folder for the life of
    /// this locator (one audit run): a folder audit looks for ~10 candidates per file, in a
    /// handful of folders, most of them missing.
    private let folders: FolderCache

    public static func == (lhs: DebugFileLocator, rhs: DebugFileLocator) -> Bool {
        lhs.directories == rhs.directories
    }

    /// Where a debuglink is looked for, for one folder of a file and one folder part of the
    /// link, in search order: the candidate folders that exist, and the places of the folder
    /// resolved through symlinks.
    fileprivate struct LinkPlan: Sendable {
        enum Step {
            /// A folder that exists, and its bytes.
            case folder(String, [UInt8])
            /// The file's folder resolved through symlinks, under `directories[index]` (which
            /// exists).
            case resolved(Int)
        }
        var steps: [Step] = []
        /// The link's folder part (`"."` for a bare name).
        var linkFolder: String
        /// For a file that `LocalFiles.resolvesThroughFolder`: per directory, the folder of
        /// its `.resolved` step when that is not the file's folder and exists.
        var plainResolved: [(String, [UInt8])?] = []

        /// `folder` with the link's folder part.
        func joined(_ folder: String) -> String {
            linkFolder == "." ? folder : folder + "/" + linkFolder
        }
    }

    private final class FolderCache: Sendable {
        let directories: [String]
        /// `<directory>/.build-id/` for each of `directories`.
        let buildIDRoots: [String]
        /// The bytes of each of `buildIDRoots`.
        let buildIDRootBytes: [[UInt8]]
        // Keyed by the paths' bytes (`ByteKey`): hashing a `String` hashes its normalized
        // scalars, several times the cost, for every candidate of every file.
        private let known = Mutex<[ByteKey: Bool]>([:])
        private let real = Mutex<[ByteKey: String]>([:])
        /// Per directory, 256 answers (by the build-id's first byte): -1 not asked yet, 0 no
        /// folder, 1 a folder.
        private let buildIDFolders: Mutex<[Int8]>
        /// Per folder of a file, the plans for each folder part of a debuglink (nearly always
        /// just ".").
        private let plans = Mutex<[ByteKey: [LinkPlan]]>([:])

        init(directories: [String]) {
            self.directories = directories
            buildIDRoots = directories.map { $0 + "/.build-id/" }
            buildIDRootBytes = buildIDRoots.map(LosslessUTF8.bytes)
            buildIDFolders = Mutex(Array(repeating: -1, count: directories.count * 256))
        }

        /// Whether `<directory>/.build-id/<digits>` is a folder, for `digits` the first two
        /// characters of a build-id.
        /// characters of a build-id, whose value is `byte` (`nil` when they are not hex).
        func buildIDFolderExists(_ directory: Int, _ digits: Substring, slot byte: Int?) -> Bool {
            guard let byte else { return exists(buildIDRoots[directory] + digits) }
            let slot = directory * 256 + byte
            let answer = buildIDFolders.withLock { $0[slot] }
            if answer >= 0 { return answer == 1 }
            let exists = LocalFiles.kind(buildIDRoots[directory] + digits) == .folder
            buildIDFolders.withLock { $0[slot] = exists ? 1 : 0 }
            return exists
        }

        /// The plan for files in `folder` whose debuglink's folder part is `linkFolder`, made
        /// on first use (as `DebugFileLocator.candidates(for:inExistingFolders:)` orders them).
        func linkPlan(folder: String, linkFolder: String) -> LinkPlan {
            let key = ByteKey(folder)
            let link = ByteKey(linkFolder)
            let known = plans.withLock { plans in plans[key]?.first { ByteKey($0.linkFolder) == link } }
            if let known { return known }
            var plan = LinkPlan(linkFolder: linkFolder)
            func consider(_ candidate: String) {
                if exists(candidate) { plan.steps.append(.folder(candidate, LosslessUTF8.bytes(candidate))) }
            }
            consider(plan.joined(folder))
            consider(plan.joined(folder + "/.debug"))
            var resolved: String?
            for (index, directory) in directories.enumerated() {
                consider(plan.joined(directory))
                consider(plan.joined(directory + folder))
                guard exists(directory) else {
                    plan.plainResolved.append(nil)
                    continue
                }
                plan.steps.append(.resolved(index))
                // As `LocalFiles.realPath(_:realFolder:)` gives it for any name in `folder`:
                // the folder's real path, joined with the name, without the name.
                let resolvedFolder = resolved ?? Self.resolvedFolder(of: folder, real: realFolder(folder))
                resolved = resolvedFolder
                let candidate = plan.joined(directory + resolvedFolder)
                plan.plainResolved.append(
                    resolvedFolder != folder && exists(candidate) ? (candidate, LosslessUTF8.bytes(candidate)) : nil)
            }
            plans.withLock { plans in
                if !(plans[key]?.contains { ByteKey($0.linkFolder) == link } ?? false) {
                    plans[key, default: []].append(plan)
                }
            }
            return plan
        }

        /// The folder of `real` joined with a name, as `LocalFiles.realPath(_:realFolder:)`
        /// joins them.
        static func resolvedFolder(of folder: String, real: String) -> String {
            LocalFiles.directory(of: real.hasSuffix("/") ? real + "x" : real + "/x")
        }

        /// `LocalFiles.realPath(folder) ?? folder`, once per folder.
        private func realFolder(_ folder: String) -> String {
            let key = ByteKey(folder)
            if let known = real.withLock({ $0[key] }) { return known }
            let resolved = LocalFiles.realPath(folder) ?? folder
            real.withLock { $0[key] = resolved }
            return resolved
        }

        /// The folder of `path` with symlinks resolved (`realpath` of the file's folder, once
        /// per folder, when the file itself is not a symlink).
        func realFolder(of path: String) -> String {
            LocalFiles.directory(of: LocalFiles.realPath(path) { realFolder($0) })
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
