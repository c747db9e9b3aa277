import Glibc
import PremainAudit
import PremainModel

/// Finds the file `execve` should run for a command name, as a shell would.
public enum CommandResolver {
    /// `command` itself when it contains a slash; otherwise the first executable regular file
    /// named `command` in the colon-separated `searchPath`. `nil` when none is found.
    public static func resolve(_ command: String, searchPath: String?) -> String? {
        if command.contains("/") { return command }
        let directories = (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
        for directory in directories {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + command
            var info = stat()
            if stat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// The absolute path `execve` should run for `command`, looked up in the `PATH` of
    /// `environment` (`NAME=value` entries; the default search path when it has none), as
    /// `measure` and `trace` both launch it. `nil` when none is found.
    public static func executable(for command: String, environment: [String]) -> String? {
        let searchPath = environment.first { $0.hasPrefix("PATH=") }.map { String($0.dropFirst(5)) }
        return resolve(command, searchPath: searchPath).map(absolute)
    }

    /// `path` made absolute against the current directory, without resolving symbolic links.
    public static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (cwd == "/" ? "" : cwd) + "/" + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
    }
}
