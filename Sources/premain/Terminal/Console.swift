import PremainModel
import PremainRender
import PremainSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where the CLI writes: stdout for results, stderr for errors and progress.
enum Console {
    /// Writes `text` to stdout; `false` (after one `Error:` line on stderr) when it could not
    /// all be written (`>/dev/full`, a closed pipe).
    @discardableResult
    static func out(_ text: String) -> Bool {
        guard let code = write(1, text) else { return true }
        error("cannot write to standard output: \(String(cString: strerror(code)).lowercased())")
        return false
    }

    static func err(_ text: String) { _ = write(2, text) }

    /// A write to a closed pipe (`premain audit … | head`) fails with `EPIPE`, which `out` and
    /// `emit` report (one `Error:` line, exit 70), instead of killing premain with SIGPIPE.
    /// SIGPIPE is caught by a handler that does nothing, not set to `SIG_IGN`: `execve` resets a
    /// caught signal to its default, so the programs premain starts (measured targets, builds,
    /// git) get SIGPIPE as they would have. An inherited `SIG_IGN` (or handler) is left as it is.
    static func survivePipeClosing() {
        var current = sigaction()
        guard sigaction(SIGPIPE, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil else { return }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        _ = sigaction(SIGPIPE, &action, nil)
    }

    /// `out` for help and version text: exits 70 when stdout cannot take it.
    static func outOrExit(_ text: String) {
        if !out(text) { exit(ExitCode.internalError.rawValue) }
    }

    /// Raw bytes to a descriptor (the measured target's forwarded output).
    static func raw(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { writeAll(fd, $0) }
    }

    /// `Error: <message>` on stderr, one line: controls and bidirectional marks in the message
    /// (a file name, a key from a report) are shown escaped (`TextSafety.display`).
    static func error(_ message: String) { err("Error: \(TextSafety.display(message))\n") }

    /// `Note: <message>` on stderr, one line: something left out or assumed, not a failure.
    /// Nothing under `--quiet`.
    static func note(_ message: String) {
        if !isQuiet { err("Note: \(TextSafety.display(message))\n") }
    }

    /// A line on stderr about what premain is doing (`history: added …`, a build step);
    /// nothing under `--quiet`.
    static func status(_ line: String) {
        if !isQuiet { err(line + "\n") }
    }

    /// `--quiet`: from now on stderr gets errors only.
    static func beQuiet() { quiet.store(true, ordering: .relaxed) }

    static var isQuiet: Bool { quiet.load(ordering: .relaxed) }

    private static let quiet = Atomic<Bool>(false)

    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Writes all of `text`; the `errno` of the failure, or `nil`.
    private static func write(_ fd: Int32, _ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Writes all of `buffer`, retrying after `EINTR` and short writes; stops at an error and
    /// returns its `errno` (`ENOSPC` for a write that makes no progress), else `nil`.
    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        guard let base = buffer.baseAddress else { return nil }
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return ENOSPC }
            offset += written
        }
        return nil
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

    /// Writes a report in pieces as `produce` hands them over (to `path`, or stdout when `path`
    /// is nil or "-"): a report that runs to megabytes is never whole in memory. Returns `false`
    /// after one `Error:` line on stderr when encoding or writing fails; what was written before
    /// stays.
    static func emitStream(to path: String?, _ produce: (_ write: ([UInt8]) -> Bool) throws -> Bool) -> Bool {
        let toStdout = path == nil || path == "-"
        let shown = toStdout ? "to standard output" : TextSafety.display(path ?? "")
        let fd = toStdout ? 1 : LocalFiles.open(path ?? "", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
        guard fd >= 0 else {
            Console.error("cannot write \(shown): \(String(cString: strerror(errno)).lowercased())")
            return false
        }
        var failure: Int32?
        let finished: Bool
        do {
            finished = try produce { bytes in
                failure = bytes.withUnsafeBytes { writeAll(fd, $0) }
                return failure == nil
            }
        } catch {
            if !toStdout { close(fd) }
            Console.error("cannot encode the report: \(error)")
            return false
        }
        if !toStdout, close(fd) != 0, errno != EINTR, failure == nil { failure = errno }
        if let failure {
            Console.error("cannot write \(shown): \(String(cString: strerror(failure)).lowercased())")
            return false
        }
        return finished
    }

    /// Makes the folders above `path` that are missing (`mkdir -p` of its folder); errors are
    /// left to the write that follows.
    static func makeParentFolders(of path: String) {
        var prefix = ""
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (index, part) in parts.enumerated() {
            prefix += (index == 0 ? "" : "/") + part
            if !prefix.isEmpty && prefix != "." && prefix != ".." { _ = LocalFiles.makeFolder(prefix) }
        }
    }

    /// Writes `text` to `path`, or stdout when `path` is nil or "-". Returns an error message
    /// when the file cannot be opened, or the text cannot all be written and closed (a full
    /// disk, `/dev/full`).
    static func write(_ text: String, to path: String?) -> String? {
        func message(_ place: String, _ code: Int32) -> String {
            "cannot write \(place): \(String(cString: strerror(code)).lowercased())"
        }
        guard let path, path != "-" else {
            return write(1, text).map { message("to standard output", $0) }
        }
        let shown = TextSafety.display(path)
        let fd = LocalFiles.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode: 0o644)
        guard fd >= 0 else { return message(shown, errno) }
        if let code = write(fd, text) {
            close(fd)
            return message(shown, code)
        }
        guard close(fd) == 0 || errno == EINTR else { return message(shown, errno) }
        return nil
    }
}
