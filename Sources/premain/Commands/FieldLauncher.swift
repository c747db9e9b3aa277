import CTrace
import LosslessText
import PremainLaunch
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `premain field run -- COMMAND`: the launcher that gives a launch its exact birth. The
/// command is looked up first; then it is started by vfork + execve with PREMAIN_T0 (`NS:PID`,
/// CLOCK_MONOTONIC just before execve, and the command's pid, both written by the child) and
/// LD_AUDIT (the recorder first, an existing list kept after it). Not an exec in place: execve
/// from premain's own process would count the tearing down of premain's address space in the
/// command's time to main (+0.65 ms on /usr/bin/true, release build: 1.17 ms against 0.51 ms,
/// 40 launches each).
enum FieldLauncher {
    /// Exits with the command's status on success; `.inputError` after an `Error:` line when
    /// the recorder or the command cannot be found or exec fails.
    static func run(_ command: [String], notify: Bool = false) -> ExitCode {
        guard let recorder = FieldCommand.recorder() else { return .inputError }
        guard let program = command.first,
            let path = CommandResolver.resolve(program, searchPath: PremainEnvironment.path.value)
        else {
            Console.error("\(TextSafety.display(command.first ?? "")): command not found")
            return .inputError
        }
        let notifying = notify || !(PremainEnvironment.notifySocket.value ?? "").isEmpty
        return FieldRunSupervisor.run(path: path, command: command, recorder: recorder, notify: notifying)
    }

    /// LD_AUDIT for the command: the recorder, then the entries of `existing` (colon-separated)
    /// other than the recorder itself.
    static func auditList(recorder: String, existing: String?) -> String {
        let others = (existing ?? "").split(separator: ":").filter { $0 != recorder[...] }
        return ([recorder] + others.map(String.init)).joined(separator: ":")
    }
}

/// `premain field run`'s parent: starts the command (`ctrace_field_spawn`), passes signals on to
/// it and exits as it did (its status, or 128 + its signal). With `notify` (`NOTIFY_SOCKET` set,
/// or `--notify`), a service that says READY=1 through sd_notify gets its "ready" recorded with
/// no change to its code: the command gets its own notification socket (an abstract one), every
/// datagram it sends there is passed on unchanged to the `NOTIFY_SOCKET` premain was given (from
/// premain, the service's main process, which the service manager accepts), and the first
/// `READY=1` writes a `ready` mark for the command's pid to the spool.
enum FieldRunSupervisor {
    static let t0Room: Int32 = 64

    static func run(path: String, command: [String], recorder: String, notify: Bool) -> ExitCode {
        let upstream = PremainEnvironment.notifySocket.value.flatMap { $0.isEmpty ? nil : $0 }
        let name = "premain-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var socketFD: Int32 = -1
        if notify {
            socketFD = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socketFD >= 0, withAddress("@" + name, { bind(socketFD, $0, $1) }) == 0 else {
                Console.error("cannot make the notification socket: \(String(cString: strerror(errno)).lowercased())")
                if socketFD >= 0 { close(socketFD) }
                return .internalError
            }
        }
        defer { if socketFD >= 0 { close(socketFD) } }
        let entries = childEnvironment(recorder: recorder, notifySocket: notify ? "@" + name : nil)
        // PREMAIN_T0's value is written by the child just before execve (its pid and clock).
        let t0Entry = UnsafeMutablePointer<CChar>.allocate(capacity: 11 + Int(t0Room))
        defer { t0Entry.deallocate() }
        _ = "PREMAIN_T0=".withCString { strcpy(t0Entry, $0) }
        var envp: [UnsafeMutablePointer<CChar>?] = entries.map { entry in LosslessUTF8.withCString(entry) { strdup($0) }
        }
        envp.append(t0Entry)
        envp.append(nil)
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { argument in
            LosslessUTF8.withCString(argument) { strdup($0) }
        }
        argv.append(nil)
        defer {
            for entry in envp.dropLast(2) { free(entry) }
            for argument in argv { free(argument) }
        }
        var execErrno: Int32 = 0
        let child = LosslessUTF8.withCString(path) {
            ctrace_field_spawn($0, &argv, &envp, t0Entry + 11, t0Room, &execErrno)
        }
        guard child > 0, execErrno == 0 else {
            let code = child < 0 ? -child : execErrno
            if child > 0 { _ = waitpid(child, nil, 0) }
            Console.error("\(TextSafety.display(path)): cannot run: \(String(cString: strerror(code)).lowercased())")
            return .inputError
        }
        _ = ctrace_field_forward_signals(child)
        let exited = ctrace_pidfd_open(child)
        var marked = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        func receive(blocking: Bool) -> Bool {
            guard socketFD >= 0 else { return false }
            let count = buffer.withUnsafeMutableBytes {
                recv(socketFD, $0.baseAddress, $0.count, blocking ? 0 : Int32(MSG_DONTWAIT))
            }
            guard count > 0 else { return false }
            let datagram = Array(buffer[0..<count])
            if let upstream {
                _ = withAddress(upstream) { address, length -> Int32 in
                    let sent = datagram.withUnsafeBytes { raw -> Int in
                        sendto(socketFD, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL), address, length)
                    }
                    return sent < 0 ? -1 : 0
                }
            }
            let lines = datagram.split(separator: UInt8(ascii: "\n"))
            if !marked, lines.contains(where: { Array($0) == Array("READY=1".utf8) }) {
                marked = true
                var now = timespec()
                clock_gettime(CLOCK_MONOTONIC, &now)
                let t = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
                _ = LosslessUTF8.withCString(PremainEnvironment.fieldDirectory()) {
                    ctrace_field_mark($0, child, "ready", t)
                }
            }
            return true
        }
        while exited >= 0 {
            // A negative descriptor (no notification socket) is left out by poll.
            var fds = [
                pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: exited, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { break }
            if fds[0].revents & Int16(POLLIN) != 0 { _ = receive(blocking: false) }
            if fds[1].revents != 0 { break }
        }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        while receive(blocking: false) {}
        if exited >= 0 { close(exited) }
        // The command's own status: what the service manager and a shell see.
        if status & 0x7f == 0 { exit((status >> 8) & 0xff) }
        exit(128 + (status & 0x7f))
    }

    /// The command's environment: premain's own without PREMAIN_T0 and LD_AUDIT (and
    /// NOTIFY_SOCKET when it gets its own, `notifySocket`), the machine ID for the recorder, and
    /// LD_AUDIT with the recorder first. PREMAIN_T0 is added by the child itself.
    static func childEnvironment(recorder: String, notifySocket: String?) -> [String] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = LosslessUTF8.string(UnsafeRawBufferPointer(start: entry, count: strlen(entry)))
            let replaced =
                ["PREMAIN_T0=", PremainEnvironment.audit.name + "="] + (notifySocket != nil ? ["NOTIFY_SOCKET="] : [])
            if !replaced.contains(where: text.hasPrefix) { entries.append(text) }
            pointer += 1
        }
        if let notifySocket { entries.append("NOTIFY_SOCKET=" + notifySocket) }
        // The machine ID for the recorder, read here once rather than by the command at its start.
        if PremainEnvironment.fieldHost.value == nil, let host = FieldSetup.machineID() {
            entries.append(PremainEnvironment.fieldHost.name + "=" + host)
        }
        entries.append(
            PremainEnvironment.audit.name + "="
                + FieldLauncher.auditList(recorder: recorder, existing: PremainEnvironment.audit.value))
        return entries
    }

    /// Calls `body` with a `sockaddr_un` for `address`: `@NAME` an abstract socket (as systemd
    /// writes it), else a path. Returns -1 when the address does not fit.
    static func withAddress(_ address: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(LosslessUTF8.bytes(address))
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { return -1 }
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        // An abstract name is as long as it is; a path ends with its NUL.
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (bytes[0] == 0 ? 0 : 1)
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}
