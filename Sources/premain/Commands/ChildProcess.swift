import LosslessText

#if canImport(Glibc)
import Glibc
#endif

/// Runs the helper programs of `premain pr --commits` (git, the user's build command): the
/// CLI's business, not a measured launch. Their output goes to premain's stderr, so that
/// stdout stays the report; `capture` reads stdout instead (a SHA from `git rev-parse`).
enum ChildProcess {
    struct Finished {
        /// The exit status; 128 + N when killed by signal N; 127 when it could not start.
        var status: Int32
        /// Its stdout when captured, else "".
        var output: String
    }

    /// Runs `arguments` (the first looked up in PATH) with premain's environment and stdin
    /// from /dev/null.
    static func run(_ arguments: [String], capture: Bool = false) -> Finished {
        guard !arguments.isEmpty else { return Finished(status: 127, output: "") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeFDs: [Int32] = [-1, -1]
        if capture {
            guard pipe(&pipeFDs) == 0 else { return Finished(status: 127, output: "") }
            // Not inherited by other children; the dup2 below gives the child its own fd 1.
            _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 2, 1)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { LosslessUTF8.withCString($0) { strdup($0) } } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = posix_spawnp(&pid, arguments[0], &actions, nil, &argv, environ)
        if capture { close(pipeFDs[1]) }
        guard started == 0 else {
            if capture { close(pipeFDs[0]) }
            return Finished(status: 127, output: "")
        }
        var output: [UInt8] = []
        if capture {
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(pipeFDs[0], $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                output += chunk[0..<count]
            }
            close(pipeFDs[0])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return Finished(status: 127, output: "") }
        }
        let code: Int32 = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Finished(status: code, output: String(decoding: output, as: UTF8.self))
    }
}
