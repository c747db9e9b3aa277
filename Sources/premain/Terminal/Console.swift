#if canImport(Glibc)
import Glibc
#endif

/// Where the CLI writes: stdout for results, stderr for errors and progress.
enum Console {
    static func out(_ text: String) { write(1, text) }
    static func err(_ text: String) { write(2, text) }

    /// Raw bytes to a descriptor (the measured target's forwarded output).
    static func raw(_ fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// `Error: <message>` on stderr, one line.
    static func error(_ message: String) { err("Error: \(message)\n") }

    /// `Note: <message>` on stderr, one line: something left out or assumed, not a failure.
    static func note(_ message: String) { err("Note: \(message)\n") }

    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    private static func write(_ fd: Int32, _ text: String) {
        var text = text
        text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Writes all of `buffer`, retrying after `EINTR` and short writes; stops at an error.
    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Renders a report with `render` and writes it to `path` (stdout when `path` is nil or
    /// "-"). Returns `false` after one `Error:` line on stderr when either step fails.
    static func emit(to path: String?, _ render: () throws -> String) -> Bool {
        let text: String
        do {
            text = try render()
        } catch {
            Console.error("cannot encode the report: \(error)")
            return false
        }
        if let problem = write(text, to: path) {
            Console.error(problem)
            return false
        }
        return true
    }

    /// Makes the folders above `path` that are missing (`mkdir -p` of its folder); errors are
    /// left to the write that follows.
    static func makeParentFolders(of path: String) {
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (index, part) in parts.enumerated() {
            prefix += (index == 0 ? "" : "/") + part
            if !prefix.isEmpty && prefix != "." && prefix != ".." { _ = mkdir(prefix, 0o755) }
        }
    }

    /// Writes `text` to `path`, or stdout when `path` is nil or "-". Returns an error message.
    static func write(_ text: String, to path: String?) -> String? {
        guard let path, path != "-" else {
            out(text)
            return nil
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "\(path): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        write(fd, text)
        return nil
    }
}
