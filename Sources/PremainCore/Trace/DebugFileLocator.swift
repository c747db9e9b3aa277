import ELFKit
#if canImport(Glibc)
import Glibc
#endif

/// Finds the file that holds an object's DWARF: the object itself, a debug file by build-id
/// (`<dir>/.build-id/xx/yyyy.debug`), or one named by `.gnu_debuglink`.
struct DebugFileLocator: Sendable {
    /// Searched first, in order (from `--debug-dir`), then `/usr/lib/debug`.
    var directories: [String]

    init(extraDirectories: [String] = []) {
        directories = extraDirectories + ["/usr/lib/debug"]
    }

    /// The path of the file with DWARF for `file`, or `nil` when none is found.
    func debugFile(for file: ELFFile) -> String? {
        if file.section(named: ".debug_info") != nil { return file.path }
        for candidate in candidates(for: file) where FileManagerLite.isReadableFile(candidate) {
            return candidate
        }
        return nil
    }

    /// Every place looked at, in order (for diagnostics and tests).
    func candidates(for file: ELFFile) -> [String] {
        var paths: [String] = []
        if let id = file.buildID, id.count > 2 {
            let split = id.index(id.startIndex, offsetBy: 2)
            for directory in directories {
                paths.append("\(directory)/.build-id/\(id[..<split])/\(id[split...]).debug")
            }
        }
        if let link = file.debugLink?.name, !link.isEmpty {
            let folder = FileManagerLite.directory(of: file.path)
            let real = FileManagerLite.directory(of: FileManagerLite.realPath(file.path) ?? file.path)
            paths.append("\(folder)/\(link)")
            paths.append("\(folder)/.debug/\(link)")
            for directory in directories {
                paths.append("\(directory)/\(link)")
                paths.append("\(directory)\(folder)/\(link)")
                if real != folder { paths.append("\(directory)\(real)/\(link)") }
            }
        }
        var seen = Set<String>()
        return paths.filter { $0 != file.path && seen.insert($0).inserted }
    }
}

/// The few file-system questions the tracer asks, without Foundation.
enum FileManagerLite {
    static func isReadableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, R_OK) == 0
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The whole file as text, or `nil` when it cannot be read.
    static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
