#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 client for one request: a POST of a body to an `http://` URL over a
/// POSIX socket (no Foundation), for exports sent to a collector on the same host or network
/// (an OpenTelemetry collector's OTLP/HTTP receiver). No TLS: an `https://` URL is refused,
/// with the advice to send to a local collector that forwards over TLS.
public enum HTTPPost {
    /// What went wrong, as one line that names the URL: `http://127.0.0.1:4318/v1/metrics:
    /// connection refused`.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var url: String
        public var message: String
        public var description: String { url + ": " + message }
    }

    /// An `http://host[:port][/path]` URL taken apart. A URL with no path (or `/`) gets
    /// `defaultPath`, as OTLP exporters add `/v1/metrics` to an endpoint.
    public struct Target: Equatable, Sendable {
        public var host: String
        public var port: UInt16
        public var path: String

        public init(host: String, port: UInt16, path: String) {
            self.host = host
            self.port = port
            self.path = path
        }

        /// Parses `url`; throws for another scheme (naming it), a missing host or a bad port.
        public init(_ url: String, defaultPath: String = "/") throws(Failure) {
            func fail(_ message: String) -> Failure { Failure(url: url, message: message) }
            if url.lowercased().hasPrefix("https://") {
                throw fail(
                    "https is not supported: send to a local OpenTelemetry collector over http (http://127.0.0.1:4318/v1/metrics), which can forward over TLS"
                )
            }
            guard url.lowercased().hasPrefix("http://") else {
                throw fail("not an http:// URL")
            }
            let rest = url.dropFirst("http://".count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            var path = String(rest.dropFirst(authority.count))
            if let fragment = path.firstIndex(of: "#") { path = String(path[..<fragment]) }
            if path.isEmpty || path == "/" { path = defaultPath }
            guard !authority.contains("@") else { throw fail("user information in the URL is not supported") }
            var host = Substring(authority)
            var portText: Substring = "80"
            if host.hasPrefix("[") {  // [::1]:4318
                guard let close = host.firstIndex(of: "]") else { throw fail("unclosed [ in the host") }
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") {
                    portText = after.dropFirst()
                } else if !after.isEmpty {
                    throw fail("bad port")
                }
                host = host[host.index(after: host.startIndex)..<close]
            } else if let colon = host.lastIndex(of: ":") {
                portText = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            guard !host.isEmpty else { throw fail("no host") }
            guard let port = UInt16(portText), port > 0 else { throw fail("bad port '\(portText)'") }
            guard path.allSatisfy({ $0.isASCII && $0 > " " }) else { throw fail("bad path") }
            self.host = String(host)
            self.port = port
            self.path = path
        }
    }

    /// POSTs `body` to `url` and returns the response's status code and reason phrase (any
    /// code: the caller decides what counts as success) once the status line has arrived. Throws a `Failure`
    /// when the URL is refused, the host does not resolve, the connection fails, or no
    /// status line comes within `timeoutSeconds` (for the whole exchange).
    public static func send(
        _ body: [UInt8], to url: String, contentType: String, defaultPath: String = "/", timeoutSeconds: Double = 10
    ) throws(Failure) -> (code: Int, reason: String) {
        let target = try Target(url, defaultPath: defaultPath)
        func fail(_ message: String) -> Failure { Failure(url: url, message: message) }
        let deadline = now() + timeoutSeconds
        let fd = try connect(target, deadline: deadline, fail)
        defer { close(fd) }
        let hostHeader = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
        let head =
            "POST \(target.path) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: premain\r\n"
            + "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try sendAll(fd, Array(head.utf8) + body, deadline: deadline, fail)
        let statusLine = try readStatusLine(fd, deadline: deadline, fail)
        // "HTTP/1.1 200 OK"
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let code = Int(parts[1]), (100...999).contains(code)
        else {
            throw fail("not an HTTP response: '\(statusLine.prefix(80))'")
        }
        return (code, parts.count > 2 ? String(parts[2]) : "")
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Milliseconds left before `deadline`, at least 0.
    static func remaining(_ deadline: Double) -> Int32 {
        Int32(max(0, min(Double(Int32.max), ((deadline - now()) * 1000).rounded(.up))))
    }

    /// Waits until `fd` is ready for `events`; throws "timed out" at the deadline.
    static func wait(_ fd: Int32, _ events: Int16, deadline: Double, _ fail: (String) -> Failure) throws(Failure) {
        while true {
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, remaining(deadline))
            if ready > 0 { return }
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 { throw fail(errorText(errno)) }
            throw fail("timed out")
        }
    }

    /// A connected non-blocking socket to the first address of `target` that accepts.
    static func connect(_ target: Target, deadline: Double, _ fail: (String) -> Failure) throws(Failure) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw fail("cannot resolve \(target.host): \(String(cString: gai_strerror(resolved)).lowercased())")
        }
        defer { freeaddrinfo(first) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(
                address.pointee.ai_family,
                address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue)
                    | Int32(SOCK_NONBLOCK.rawValue), address.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = errno
                continue
            }
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
            guard errno == EINPROGRESS else {
                lastError = errno
                close(fd)
                continue
            }
            do {
                try wait(fd, Int16(POLLOUT), deadline: deadline, fail)
            } catch {
                close(fd)
                throw error
            }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 && code == 0 { return fd }
            lastError = code == 0 ? errno : code
            close(fd)
        }
        throw fail(errorText(lastError))
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8], deadline: Double, _ fail: (String) -> Failure) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(fd, buffer.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                try wait(fd, Int16(POLLOUT), deadline: deadline, fail)
            } else {
                throw fail(errorText(sent < 0 ? errno : EPIPE))
            }
        }
    }

    /// The response's first line, without its line end (read until "\n", at most 8 KiB).
    static func readStatusLine(_ fd: Int32, deadline: Double, _ fail: (String) -> Failure) throws(Failure) -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !received.contains(UInt8(ascii: "\n")) && received.count < 8192 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[0..<count]
            } else if count == 0 {
                throw fail(
                    received.isEmpty ? "the server closed the connection without a response" : "truncated response")
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try wait(fd, Int16(POLLIN), deadline: deadline, fail)
            } else {
                throw fail(errorText(errno))
            }
        }
        let line = received.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        return String(decoding: line, as: UTF8.self)
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}
