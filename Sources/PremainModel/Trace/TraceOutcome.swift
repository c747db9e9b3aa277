/// How a traced launch ended. Encoded as its `description`, the text every trace report has
/// carried: "reached main", "exited with status 0", "killed by signal 11", "timed out".
public enum TraceOutcome: Equatable, Sendable, CustomStringConvertible, Codable {
    /// The window's milestone was reached (`main`, `first-output` or the `--until` symbol);
    /// premain then ended the process group.
    case milestoneReached(String)
    /// The target exited with this status before the milestone (or with `--until exit`).
    case exited(code: Int32)
    /// A signal killed the target.
    case killedBySignal(Int32)
    /// The run did not end within `--timeout`; premain killed its process group.
    case timedOut

    /// True when the run reached its milestone or exited with status 0.
    public var succeeded: Bool {
        switch self {
        case .milestoneReached, .exited(code: 0): return true
        case .exited, .killedBySignal, .timedOut: return false
        }
    }

    public var description: String {
        switch self {
        case .milestoneReached(let name): return "reached \(name)"
        case .exited(let code): return "exited with status \(code)"
        case .killedBySignal(let signal): return "killed by signal \(signal)"
        case .timedOut: return "timed out"
        }
    }

    /// Reads the text `description` writes; `nil` for any other text.
    public init?(description text: String) {
        if text == "timed out" {
            self = .timedOut
        } else if text.hasPrefix("reached "), text.count > 8 {
            self = .milestoneReached(String(text.dropFirst(8)))
        } else if text.hasPrefix("exited with status "), let code = Int32(text.dropFirst(19)) {
            self = .exited(code: code)
        } else if text.hasPrefix("killed by signal "), let signal = Int32(text.dropFirst(17)) {
            self = .killedBySignal(signal)
        } else {
            return nil
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let outcome = TraceOutcome(description: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown trace outcome '\(text)'")
        }
        self = outcome
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// Where the timing window of a traced run ends (`--until`). Encoded as its `description`:
/// `main`, `first-output`, `exit` or the symbol.
public enum TraceWindowEnd: Equatable, Sendable, CustomStringConvertible, Codable {
    /// The program's `main` is called.
    case main
    /// The first libc `write`/`writev` on fd 1 or 2.
    case firstOutput
    /// The process exits.
    case exit
    /// A function named by the user is called.
    case symbol(String)

    /// Parses `main`, `first-output`, `exit`, or anything else as a symbol.
    public init(argument: String) {
        switch argument {
        case "main": self = .main
        case "first-output": self = .firstOutput
        case "exit": self = .exit
        default: self = .symbol(argument)
        }
    }

    public var description: String {
        switch self {
        case .main: return "main"
        case .firstOutput: return "first-output"
        case .exit: return "exit"
        case .symbol(let name): return name
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(argument: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
