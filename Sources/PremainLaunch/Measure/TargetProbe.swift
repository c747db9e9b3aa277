import ELFKit
import Glibc
import LosslessText
import PremainModel
import PremainSystem

/// Finds the file `execve` should run for a command name, as a shell would.
public enum CommandResolver {
    /// `command` itself when it contains a slash and names an existing file (whether it can be
    /// executed is `execve`'s to say); otherwise the first executable regular file named
    /// `command` in the colon-separated `searchPath`. `nil` when none is found.
    public static func resolve(_ command: String, searchPath: String?) -> String? {
        if command.contains("/") {
            return LocalFiles.status(command) != nil ? command : nil
        }
        let directories = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(
            separator: ":", omittingEmptySubsequences: false)
        for directory in directories {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + command
            if let info = LocalFiles.status(candidate), info.st_mode & S_IFMT == S_IFREG,
                LocalFiles.isAccessible(candidate, X_OK)
            {
                return candidate
            }
        }
        return nil
    }

    /// The absolute path `execve` should run for `command`, looked up in the `PATH` of
    /// `environment` (`NAME=value` entries; the default search path when it has none), as
    /// `measure` and `trace` both launch it. `nil` when none is found.
    public static func executable(for command: String, environment: [String]) -> String? {
        let searchPath = PremainEnvironment.path.value(in: environment)
        return resolve(command, searchPath: searchPath).map(absolute)
    }

    /// `path` made absolute against the current directory, without resolving symbolic links.
    public static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = LosslessUTF8.string(buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
        return (cwd == "/" ? "" : cwd) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}

/// What premain needs to know about the executable before launching it.
public struct TargetProbe: Equatable, Sendable {
    public var path: String
    public var buildID: String?
    /// PT_INTERP; `nil` for static or non-ELF files.
    public var interpreter: String?
    /// True when glibc's loader will run it, so `LD_DEBUG` works.
    public var glibcLoader: Bool
    /// Why there will be no loader phases; `nil` when there will be.
    public var loaderPhasesMissing: String?

    /// Reads `path`'s ELF header and program headers. Never throws: a file that is not ELF is
    /// described as such.
    public static func probe(_ path: String) -> TargetProbe {
        guard let file = try? ELFFile(path: path) else {
            return TargetProbe(
                path: path, buildID: nil, interpreter: nil, glibcLoader: false,
                loaderPhasesMissing:
                    "not an ELF file (a script?): LD_DEBUG would describe its interpreter's start-up, not its own")
        }
        let interpreter = file.interpreter
        guard let interpreter else {
            return TargetProbe(
                path: path, buildID: file.buildID, interpreter: nil, glibcLoader: false,
                loaderPhasesMissing:
                    "statically linked (no PT_INTERP): no dynamic loader runs, so there are no loader lines to time")
        }
        let name = ObjectName.fileName(interpreter)
        let glibc = ObjectName.isDynamicLoader(name)
        return TargetProbe(
            path: path, buildID: file.buildID, interpreter: interpreter, glibcLoader: glibc,
            loaderPhasesMissing: glibc ? nil : "its loader \(interpreter) is not glibc's: LD_DEBUG is a glibc feature")
    }
}
