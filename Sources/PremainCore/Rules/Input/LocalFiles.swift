#if canImport(Glibc)
import Glibc
#endif

/// The few file-system questions the loaders ask, answered with POSIX calls.
enum LocalFiles {
    enum Kind { case missing, folder, file, other }

    static func kind(_ path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFREG: return .file
        default: return .other
        }
    }

    /// Regular files under `folder`, recursively, sorted; symlinked folders are not entered.
    static func files(under folder: String) -> [String] {
        var result: [String] = []
        var pending = [folder.hasSuffix("/") && folder.count > 1 ? String(folder.dropLast()) : folder]
        var visited = 0
        while let current = pending.popLast(), visited < 100_000 {
            visited += 1
            guard let directory = opendir(current) else { continue }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                guard name != ".", name != ".." else { continue }
                let full = current + "/" + name
                var info = stat()
                guard lstat(full, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: pending.append(full)
                case S_IFREG: result.append(full)
                case S_IFLNK: if kind(full) == .file { result.append(full) }
                default: break
                }
            }
        }
        return result.sorted()
    }

    /// The file's bytes, at most `limit`; `nil` when it cannot be read.
    static func read(_ path: String, limit: Int = 512 << 20) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// `true` when the first non-blank byte of the file is `{`.
    static func startsLikeJSON(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 64)
        let count = head.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        return head[0..<count].first { !($0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09) } == UInt8(ascii: "{")
    }
}
