import ELFKit
import PremainSystem

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
        for candidate in candidates(for: file) where LocalFiles.isReadableFile(candidate) {
            return candidate
        }
        return nil
    }

    /// Every place looked at, in order (for diagnostics and tests).
    public func candidates(for file: ELFFile) -> [String] {
        var paths: [String] = []
        if let id = file.buildID, id.count > 2 {
            let split = id.index(id.startIndex, offsetBy: 2)
            for directory in directories {
                paths.append("\(directory)/.build-id/\(id[..<split])/\(id[split...]).debug")
            }
        }
        if let link = file.debugLink?.name, !link.isEmpty {
            let folder = LocalFiles.directory(of: file.path)
            let real = LocalFiles.directory(of: LocalFiles.realPath(file.path) ?? file.path)
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
