/// What premain reads from valgrind's log (`--log-file`) when it runs with
/// `--trace-syscalls=yes`: the descriptor of every `write`/`writev` system call of one process,
/// in order, and the lines that explain a failed start. Lines look like
/// `SYSCALL[4711,1](1) sys_write ( 1, 0x4047f10, 36 ) --> [async] ...`; the continuation lines
/// of a blocking call (`SYSCALL[4711,1](1) ... [async] --> Success(0x24)`) name no call.
public enum ValgrindLog {
    /// The system calls that put bytes on a descriptor, as valgrind names them.
    static let writeCalls: Set<String> = ["sys_write", "sys_writev"]

    /// The first argument (the descriptor) of each `sys_write`/`sys_writev` line of process
    /// `pid`, in order. `[]` when there is none; lines that do not parse are skipped (the log
    /// also holds valgrind's own messages).
    public static func writeDescriptors(in log: [UInt8], pid: Int32) -> [Int32] {
        var result: [Int32] = []
        for line in log.split(separator: UInt8(ascii: "\n")) {
            guard let call = syscall(line), call.pid == pid, writeCalls.contains(call.name),
                let fd = call.firstArgument
            else { continue }
            result.append(fd)
        }
        return result
    }

    /// Up to `limit` lines of the log that are not system-call trace lines: valgrind's own
    /// errors ("valgrind: …", "==4711== …" without its "==4711==" prefix), each trimmed. `[]`
    /// when there are none.
    public static func messages(in log: [UInt8], limit: Int = 5) -> [String] {
        var result: [String] = []
        for line in log.split(separator: UInt8(ascii: "\n")) where result.count < limit {
            var text = Substring(String(decoding: line, as: UTF8.self))
            if text.hasPrefix("=="), let end = text.dropFirst(2).firstRange(of: "==") {
                text = text[end.upperBound...]
            }
            let message = String(text.trimmingBlanks())
            if message.isEmpty || message.hasPrefix("SYSCALL[") || message.hasPrefix("--") { continue }
            result.append(String(message.prefix(300)))
        }
        return result
    }

    /// One parsed `SYSCALL[pid,tid](nr) name ( a, b, … )` line.
    struct Syscall: Equatable {
        var pid: Int32
        var name: String
        var firstArgument: Int32?
    }

    static func syscall(_ line: ArraySlice<UInt8>) -> Syscall? {
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("SYSCALL["), let comma = text.firstIndex(of: ","),
            let pid = Int32(text[text.index(text.startIndex, offsetBy: 8)..<comma]),
            let close = text.firstIndex(of: ")")
        else { return nil }
        let rest = text[text.index(after: close)...].drop { $0 == " " }
        guard let open = rest.firstIndex(of: "(") else { return nil }
        let name = String(rest[rest.startIndex..<open].trimmingBlanks())
        guard name.hasPrefix("sys_") else { return nil }
        let arguments = rest[rest.index(after: open)...]
        let first = arguments.prefix { $0 != "," && $0 != ")" }.trimmingBlanks()
        return Syscall(pid: pid, name: name, firstArgument: Int32(first))
    }
}
