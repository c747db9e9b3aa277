import PremainLaunch
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

    /// `Warning: <message>` on stderr, one line, once per process whoever asks again: something
    /// of this machine left results incomplete (libdw not usable, so no source lines); printed
    /// under `--quiet` too.
    static func warning(_ message: String) {
        guard warned.withLock({ $0.insert(message).inserted }) else { return }
        err("Warning: \(TextSafety.display(message))\n")
    }

    private static let warned = Mutex<Set<String>>([])

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

    /// Where a report with no path of its own goes (`emit(to: nil)`, `--output` not given):
    /// stdout, or stderr once another output was given as "-" (`sendReportToStderr`), so
    /// stdout carries one document that parses.
    static var reportDescriptor: Int32 { reportToStderr.load(ordering: .relaxed) ? 2 : 1 }

    /// Another output (`--json -`, `--export-bmf -`) has stdout: the report goes to stderr.
    static func sendReportToStderr() { reportToStderr.store(true, ordering: .relaxed) }

    private static let reportToStderr = Atomic<Bool>(false)

    /// The descriptor of `path`: stdout for "-", `reportDescriptor` for nil, else nil (a file).
    private static func descriptor(_ path: String?) -> Int32? {
        guard let path else { return reportDescriptor }
        return path == "-" ? 1 : nil
    }

    /// Writes all of `text`; the `errno` of the failure, or `nil`.
    private static func write(_ fd: Int32, _ text: String) -> Int32? {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Writes all of `buffer` (`ReplacedFile.writeAll`: retried after `EINTR` and short
    /// writes); the `errno` of the failure, or `nil`.
    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32? {
        outputFile.writeAll(fd, buffer)
    }

    /// Renders a report with `render` and writes it to `path` (stdout when `path` is "-";
    /// `reportDescriptor` when it is nil). Returns `false` after one `Error:` line on stderr when either step fails.
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

    /// Writes a report in pieces as `produce` hands them over (to `path`, or as `emit` when
    /// `path` is nil or "-"): a report that runs to megabytes is never whole in memory. Returns `false`
    /// after one `Error:` line on stderr when encoding or writing fails; a file is then left as
    /// it was (`outputFile`), while what went to stdout stays.
    static func emitStream(
        to path: String?, _ produce: (_ write: (UnsafeRawBufferPointer) -> Bool) throws -> Bool
    ) -> Bool {
        if let fd = descriptor(path) {
            var failure: Int32?
            let finished: Bool
            do {
                finished = try produce { bytes in
                    failure = writeAll(fd, bytes)
                    return failure == nil
                }
            } catch {
                Console.error("cannot encode the report: \(error)")
                return false
            }
            if let failure {
                Console.error(streamFailure(fd, failure))
                return false
            }
            return finished
        }
        guard let path else { return false }
        let failure = outputFile.write(to: path) { write in
            try withoutActuallyEscaping(write) { write in
                try produce { bytes in write(bytes) }
            }
        }
        switch failure {
        case nil: return true
        case .content(let message): Console.error("cannot encode the report: \(message)")
        case .system(let code): Console.error(writeFailure(path, code))
        }
        return false
    }

    /// The one writer of every file premain writes (reports, exports, models, pr's files):
    /// a temporary file in the target's folder renamed over it, removed by the signal guard
    /// when premain is interrupted (`ReplacedFile`, `LaunchGuard.removeOnSignal`).
    static let outputFile = ReplacedFile(guardTemporary: { LaunchGuard.removeOnSignal(temporary: $0) })

    /// "cannot write to standard output: REASON" (or standard error).
    private static func streamFailure(_ fd: Int32, _ code: Int32) -> String {
        "cannot write to standard \(fd == 2 ? "error" : "output"): \(String(cString: strerror(code)).lowercased())"
    }

    /// "cannot write PATH: REASON", the one line of a file that could not be written.
    private static func writeFailure(_ path: String, _ code: Int32) -> String {
        "cannot write \(TextSafety.display(path)): \(String(cString: strerror(code)).lowercased())"
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

    /// Writes `text` to `path` (through `outputFile`: the previous file stays when the write
    /// fails), or stdout when `path` is "-", `reportDescriptor` when it is nil. Returns an error
    /// message when the file cannot be made, or the text cannot all be written and flushed (a
    /// full disk, `/dev/full`).
    static func write(_ text: String, to path: String?) -> String? {
        if let fd = descriptor(path) { return write(fd, text).map { streamFailure(fd, $0) } }
        guard let path else { return nil }
        var text = text
        let failure = outputFile.write(to: path) { write in
            text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
        }
        switch failure {
        case nil: return nil
        case .content(let message): return "cannot encode the report: \(message)"
        case .system(let code): return writeFailure(path, code)
        }
    }
}
