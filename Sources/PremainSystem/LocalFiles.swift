import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// The file-system questions premain asks, answered with POSIX calls (no Foundation): one
/// place for path names, directory listings and whole-file reads.
///
/// Paths are bytes: a name that is not UTF-8 is carried as `LosslessUTF8` text, and every call
/// here hands the system the bytes it stands for.
public enum LocalFiles {
    public enum Kind: Sendable { case missing, folder, file, other }

    /// What `path` is, following symlinks; `.missing` when `stat` fails.
    public static func kind(_ path: String) -> Kind {
        guard let info = status(path) else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFREG: return .file
        default: return .other
        }
    }

    /// `true` for a regular file this process may read.
    public static func isReadableFile(_ path: String) -> Bool {
        // One C string for both calls.
        LosslessUTF8.withCString(path) { name in
            var info = stat()
            return stat(name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(name, R_OK) == 0
        }
    }

    /// `isReadableFile` of the path whose bytes (`LosslessUTF8.bytes`) are `head` and then
    /// `tail`, for a caller that tries many paths and makes a `String` only of the one it finds.
    public static func isReadableFile(bytes head: [UInt8], _ tail: [UInt8]) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: head.count + tail.count + 1) { buffer in
            guard let base = buffer.baseAddress else { return false }
            head.withUnsafeBufferPointer { source in
                if let start = source.baseAddress { base.update(from: start, count: head.count) }
            }
            tail.withUnsafeBufferPointer { source in
                if let start = source.baseAddress { (base + head.count).update(from: start, count: tail.count) }
            }
            base[head.count + tail.count] = 0
            return UnsafeRawPointer(base).withMemoryRebound(to: CChar.self, capacity: buffer.count) { name in
                var info = stat()
                return stat(name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && access(name, R_OK) == 0
            }
        }
    }

    /// `stat(2)` of `path` (symlinks followed); `nil` with `errno` set when it fails.
    public static func status(_ path: String) -> stat? {
        var info = stat()
        return LosslessUTF8.withCString(path) { stat($0, &info) } == 0 ? info : nil
    }

    /// `fstat(2)` of an open descriptor; `nil` with `errno` set when it fails.
    public static func status(descriptor: Int32) -> stat? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? info : nil
    }

    /// What the symbolic link at `path` points to (`readlink(2)`, bytes kept as they are);
    /// `nil` when it is not a link or cannot be read.
    public static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let size = buffer.count - 1
        let count = LosslessUTF8.withCString(path) { readlink($0, &buffer, size) }
        guard count > 0 else { return nil }
        return LosslessUTF8.string(buffer[0..<count].map { UInt8(bitPattern: $0) })
    }

    /// Removes the files in `folder` (not below it) and then the folder; what cannot be
    /// removed is left. The one removal of premain's temporary folders.
    public static func removeFolderAndFiles(_ folder: String) {
        if case .success(let names) = entries(of: folder) {
            for name in names { _ = LosslessUTF8.withCString(folder + "/" + name) { unlink($0) } }
        }
        _ = LosslessUTF8.withCString(folder) { rmdir($0) }
    }

    /// Makes a new folder `PARENT/premain-NAME-XXXXXX` (mode 0700, six random letters and digits,
    /// made with `mkdir`, which fails on a name that exists, as `mkdtemp(3)` does) in `parent`,
    /// `$TMPDIR` (or `/tmp` when it is unset or not absolute) unless given: the one maker of
    /// premain's temporary folders. `beforeMaking` is told each name before it is made, so a
    /// guard that removes the folder when premain is killed knows it before it exists (with
    /// `mkdtemp` a kill between the making and the telling left the folder behind). A failure
    /// says where and why ("cannot create a temporary folder in /tmp: no space left on device").
    public static func makeTemporaryFolder(
        _ name: String, in parent: String = PremainEnvironment.temporaryDirectory(),
        beforeMaking: (String) -> Void = { _ in }
    ) -> Result<String, DirectoryError> {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let suffix = String((0..<6).map { _ in letters[Int(generator.next(upperBound: UInt64(letters.count)))] })
            let path = parent + "/premain-\(name)-" + suffix
            beforeMaking(path)
            if LosslessUTF8.withCString(path, { mkdir($0, 0o700) }) == 0 { return .success(path) }
            guard errno == EEXIST else { break }
        }
        let reason = String(cString: strerror(errno)).lowercased()
        return .failure(DirectoryError(message: "cannot create a temporary folder in \(parent): \(reason)"))
    }

    /// `lstat(2)` of `path` (a symlink itself); `nil` with `errno` set when it fails.
    public static func linkStatus(_ path: String) -> stat? {
        var info = stat()
        return LosslessUTF8.withCString(path) { lstat($0, &info) } == 0 ? info : nil
    }

    /// `open(2)` of `path` with `flags` (and `mode` when creating): the descriptor, or -1 with
    /// `errno` set.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0) -> Int32 {
        LosslessUTF8.withCString(path) { Glibc.open($0, flags, mode) }
    }

    /// `mkdir(2)` of `path` with `mode` (0755 unless said): `true` when it was made.
    @discardableResult
    public static func makeFolder(_ path: String, mode: mode_t = 0o755) -> Bool {
        LosslessUTF8.withCString(path) { mkdir($0, mode) } == 0
    }

    /// `access(2)` of `path` for `mode` (`X_OK`, `R_OK`, ...): `true` when allowed.
    public static func isAccessible(_ path: String, _ mode: Int32) -> Bool {
        LosslessUTF8.withCString(path) { access($0, mode) } == 0
    }

    /// The folder part of `path`: `"."` when it has no slash, `"/"` for a file in the root.
    public static func directory(of path: String) -> String {
        // On the UTF-8 bytes: a search by Character costs a grapheme break test per character.
        guard let slash = lastSlash(in: path) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(Substring(path.utf8[..<slash]))
    }

    /// The index of the last "/" byte of `path`, or `nil`; searched on the contiguous UTF-8
    /// (`lastIndex(of:)` on `String.UTF8View` costs several instructions a byte).
    public static func lastSlash(in path: String) -> String.Index? {
        let bytes = path.utf8
        let offset = bytes.withContiguousStorageIfAvailable { buffer -> Int? in
            var index = buffer.count
            while index > 0 {
                index -= 1
                if buffer[index] == UInt8(ascii: "/") { return index }
            }
            return nil
        }
        guard let offset else { return bytes.lastIndex(of: UInt8(ascii: "/")) }
        return offset.map { bytes.index(bytes.startIndex, offsetBy: $0) }
    }

    /// `true` when `realPath(path, realFolder:)` resolves `path` through its folder (the last
    /// component is a name that is not a symlink, and the folder is not the root): then the
    /// real path is the folder's, resolved, and the name.
    public static func resolvesThroughFolder(_ path: String) -> Bool {
        guard let slash = lastSlash(in: path), slash != path.utf8.startIndex else { return false }
        // The name is not "", "." or "..".
        let name = path.utf8[path.utf8.index(after: slash)...]
        let length = name.count
        guard length > 0, length > 2 || name.contains(where: { $0 != UInt8(ascii: ".") }) else { return false }
        guard let info = linkStatus(path), info.st_mode & S_IFMT != S_IFLNK else { return false }
        return true
    }

    /// This machine's name (`gethostname`), or `nil` when it has none.
    public static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name
    }

    /// `path` with symlinks, `.` and `..` resolved; `nil` when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = LosslessUTF8.withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return LosslessUTF8.string(cString: resolved)
    }

    /// `realPath(path) ?? path`, with the folder resolved by `realFolder` (a memo of
    /// `realPath(folder) ?? folder`, say): when the last component is not a symlink, the real
    /// path is the folder's real path and the name, one `lstat` instead of `realpath`'s
    /// `readlink` of every component.
    public static func realPath(_ path: String, realFolder: (String) -> String) -> String {
        let whole = { realPath(path) ?? path }
        let bytes = path.utf8
        guard let slash = lastSlash(in: path), slash != bytes.startIndex else { return whole() }
        let name = String(Substring(bytes[bytes.index(after: slash)...]))
        guard !name.isEmpty, name != ".", name != ".." else { return whole() }
        guard let info = linkStatus(path), info.st_mode & S_IFMT != S_IFLNK else { return whole() }
        let folder = realFolder(String(Substring(bytes[..<slash])))
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The names in `folder` (without `.` and `..`), unsorted; a failure with the `errno` text
    /// when the folder cannot be opened.
    public static func entries(of folder: String) -> Result<[String], DirectoryError> {
        guard let directory = LosslessUTF8.withCString(folder, { opendir($0) }) else {
            return .failure(DirectoryError(message: String(cString: strerror(errno)).lowercased()))
        }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            // The name's bytes as they are: a name that is not UTF-8 is still a file.
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                LosslessUTF8.string(UnsafeRawBufferPointer(rebasing: raw.prefix { $0 != 0 }))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return .success(names)
    }

    /// Why a folder could not be listed: the `strerror` text, lowercase.
    public struct DirectoryError: Error, Equatable, Sendable {
        public var message: String
    }

    /// The file's bytes, at most `limit`; `nil` when it cannot be opened, is not a regular
    /// file (a FIFO or a device is refused without blocking), or a read fails.
    public static func read(_ path: String, limit: Int = 512 << 20) -> [UInt8]? {
        guard let (bytes, complete) = readPrefix(path, limit: limit, regularOnly: true), complete else { return nil }
        return bytes
    }

    /// The first `count` bytes of the file (fewer when it is shorter); `nil` when it cannot be
    /// opened, is not a regular file, or a read fails.
    public static func head(_ path: String, count: Int) -> [UInt8]? {
        // Read into the one array returned (`readPrefix` copies through a chunk): a folder walk
        // reads the head of every file.
        let fd = openForReading(path, regularOnly: true)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            filled += got
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Opens `path` for reading without blocking (a FIFO without a writer, a terminal) and
    /// returns the descriptor, or -1 when it cannot be opened or, with `regularOnly`, is not a
    /// regular file.
    public static func openForReading(_ path: String, regularOnly: Bool) -> Int32 {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return -1 }
        var info = stat()
        guard !regularOnly || (fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG) else {
            close(fd)
            return -1
        }
        return fd
    }

    /// A small text file (/proc, /sys) as UTF-8, at most `limit` bytes; `nil` when it cannot be
    /// opened. A read error ends the text where it happened.
    public static func readText(_ path: String, limit: Int = 1 << 20) -> String? {
        readPrefix(path, limit: limit).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// Up to `limit` bytes from the start of the file, and whether they were read without an
    /// error (end of file or the limit reached); `nil` when the file cannot be opened.
    private static func readPrefix(_ path: String, limit: Int, regularOnly: Bool = false)
        -> (bytes: [UInt8], complete: Bool)?
    {
        let fd = regularOnly ? openForReading(path, regularOnly: true) : open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readPrefix(fd: fd, limit: limit)
    }

    /// What `fd` gives until its end, at most `limit` bytes; `complete` is `false` when a read failed.
    private static func readPrefix(fd: Int32, limit: Int) -> (bytes: [UInt8], complete: Bool) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: max(1, min(1 << 16, limit)))
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return (Array(bytes.prefix(limit)), false)
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return (Array(bytes.prefix(limit)), true)
    }

    /// Everything on stdin (`history add -`) up to `limit` bytes; `nil` when a read fails or
    /// there is more.
    public static func readStandardInput(limit: Int = 512 << 20) -> [UInt8]? {
        let (bytes, complete) = readPrefix(fd: 0, limit: limit + 1)
        return complete && bytes.count <= limit ? bytes : nil
    }

    /// `true` when the first non-blank byte of the regular file is `{`.
    public static func startsLikeJSON(_ path: String) -> Bool {
        let fd = openForReading(path, regularOnly: true)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 64)
        let count = head.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        return head[0..<count].first { !($0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09) } == UInt8(ascii: "{")
    }
}
