import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Servers a test starts on 127.0.0.1 (Prometheus, node_exporter, a receiver in Python) and
/// stops again on every path: `stop()` in a `defer`, and, should the test process die first,
/// the kernel's parent-death signal (each service is started through a one-line Python
/// launcher that sets `PR_SET_PDEATHSIG` to SIGKILL and unblocks every signal, which the
/// spawning thread may block, before it execs the server).
public final class LocalService: @unchecked Sendable {
    public let process: Process
    /// Where its standard output and error go (one file), for a failure message.
    public let logPath: String

    /// Starts `arguments` (the first looked up on PATH) with its output in `logPath`; throws when
    /// it cannot start.
    public init(_ arguments: [String], logPath: String) throws {
        let launcher =
            "import ctypes, os, signal, sys\n"
            + "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)\n"  // PR_SET_PDEATHSIG
            + "if os.getppid() == 1: sys.exit(1)\n"  // the parent already went
            + "signal.pthread_sigmask(signal.SIG_SETMASK, [])\n"  // a test thread's blocked signals
            + "os.execvp(sys.argv[1], sys.argv[1:])\n"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", launcher] + arguments
        self.logPath = logPath
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// What it has written so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then SIGKILL when it has not ended within a generous while; reaped.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        _ = Poll.exit(of: process, seconds: 30)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick for port 0). The
    /// caller hands it to a server at once; another process could take it in between, which
    /// shows as that server failing to start, never as a wrong result.
    public static func freePort() throws -> UInt16 {
        let (fd, port) = try boundSocket(listening: false)
        close(fd)
        return port
    }

    /// A socket on 127.0.0.1 that listens and never accepts nor answers: a connection to it
    /// completes (the kernel's backlog) and then waits forever. The caller closes `fd`.
    public static func silentListener() throws -> (fd: Int32, port: UInt16) {
        try boundSocket(listening: true)
    }

    static func boundSocket(listening: Bool) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound, !listening || listen(fd, 4) == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// The body of a GET of `url` (through Python's urllib, which every test machine has), or
    /// `nil` when the request fails (not listening yet, an error status).
    public static func get(_ url: String) -> String? {
        let fetched = try? Shell.run([
            "python3", "-c",
            "import sys, urllib.request\nsys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())",
            url,
        ])
        guard let fetched, fetched.status == 0 else { return nil }
        return fetched.stdout
    }

    /// Makes sure `programs` are on PATH and `modules` import in python3: runs scripts/setup
    /// once when one is missing (it installs them when it can). Returns `nil` when all are
    /// there, else what is still missing, for a skip message.
    public static func require(programs: [String], pythonModules: [String] = []) -> String? {
        func missing() -> [String] {
            programs.filter { HostFacts.program($0) == nil }
                + pythonModules.filter { (try? Shell.run(["python3", "-c", "import " + $0]))?.status != 0 }
        }
        if missing().isEmpty { return nil }
        setupOnce
        let still = missing()
        return still.isEmpty
            ? nil
            : "\(still.joined(separator: ", ")) missing and scripts/setup could not install it (needs root or sudo, and the Debian and PyPI registries)"
    }

    /// scripts/setup, run at most once per test process.
    static let setupOnce: Void = {
        _ = try? Shell.run(["bash", Repository.root + "/scripts/setup"])
    }()
}
