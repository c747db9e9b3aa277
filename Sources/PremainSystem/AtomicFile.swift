import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// A file replaced whole or not at all: written to a temporary file in the target's folder,
/// flushed to disk, then renamed over the target (what node_exporter's textfile collector
/// asks for, so that a scrape never reads half a file). On failure the old file stays and the
/// temporary one is removed.
public enum AtomicFile {
    /// Replaces `path` with `bytes` (mode 0644). The temporary file is `NAME.tmp-PID`
    /// beside it, a name node_exporter does not read (it reads `*.prom`). Returns a one-line
    /// error naming the file, or `nil` when the file was replaced.
    public static func replace(_ path: String, with bytes: [UInt8]) -> String? {
        let shown = TextSafety.display(path)
        func failure(_ code: Int32) -> String {
            "cannot write \(shown): \(String(cString: strerror(code)).lowercased())"
        }
        guard !path.isEmpty, !path.hasSuffix("/") else { return "cannot write '\(shown)': not a file name" }
        if LocalFiles.kind(path) == .folder { return failure(EISDIR) }
        let temporary = path + ".tmp-\(getpid())"
        let fd = LocalFiles.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode: 0o644)
        guard fd >= 0 else { return failure(errno) }
        var problem: Int32? = nil
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = write(fd, base + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 {
                    problem = written < 0 ? errno : ENOSPC
                    return
                }
                offset += written
            }
        }
        if problem == nil, fsync(fd) != 0, errno != EINVAL { problem = errno }
        if close(fd) != 0, problem == nil, errno != EINTR { problem = errno }
        if problem == nil {
            let renamed = LosslessUTF8.withCString(temporary) { from in
                LosslessUTF8.withCString(path) { to in rename(from, to) }
            }
            if renamed != 0 { problem = errno }
        }
        guard let problem else { return nil }
        _ = LosslessUTF8.withCString(temporary) { unlink($0) }
        return failure(problem)
    }
}
