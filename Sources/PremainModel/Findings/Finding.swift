/// One thing a rule or budget found: what, where, how much, and what to do.
///
/// `fingerprint` is rule + subject (object name, demangled symbol), never an address or an
/// offset, so the same finding in two builds has the same fingerprint.
public struct Finding: Codable, Sendable, Equatable, Hashable {
    /// The rule or budget identifier, snake_case (`heavy_static_initializer`).
    public var rule: String
    public var severity: Severity
    public var subject: Subject
    /// The counted or measured figure; `nil` for yes/no findings (TEXTREL, a missing library).
    public var figure: Double?
    /// The threshold the figure was compared with; `nil` for yes/no findings.
    public var threshold: Double?
    /// The unit of `figure` and `threshold`: "ms", "initializers", "objects", ...; `nil` with them.
    public var unit: String?
    /// What was found, with the figure. No trailing period.
    public var message: String
    /// What to do about it. No trailing period.
    public var advice: String
    /// `rule` + subject: stable across builds.
    public var fingerprint: String
    /// Where in the sources to look: the DWARF line of the initializer or function the finding
    /// is about, or the line of the build file that names the object. `nil` when unknown (and
    /// in reports written before premain knew it: the key is left out when absent).
    public var location: SourceLocation?

    /// Where a finding is: an object (soname or file name), and a symbol inside it when the
    /// finding is about one function.
    public struct Subject: Codable, Sendable, Equatable, Hashable {
        /// Soname, else file name (never a temporary folder), e.g. "libinit.so".
        public var object: String
        /// The path the object was read from; `nil` when only a report named it.
        public var path: String?
        /// Demangled symbol, else the raw symbol; `nil` for object-level findings.
        public var symbol: String?

        public init(object: String, path: String? = nil, symbol: String? = nil) {
            self.object = object
            self.path = path
            self.symbol = symbol
        }
    }

    public init(rule: String, severity: Severity, subject: Subject, figure: Double? = nil,
                threshold: Double? = nil, unit: String? = nil, message: String, advice: String,
                location: SourceLocation? = nil) {
        self.rule = rule
        self.severity = severity
        self.subject = subject
        self.figure = figure
        self.threshold = threshold
        self.unit = unit
        self.message = Finding.trimmed(message)
        self.advice = Finding.trimmed(advice)
        self.fingerprint = Finding.fingerprint(rule: rule, subject: subject)
        self.location = location
    }

    /// `rule:object` or `rule:object:symbol`.
    public static func fingerprint(rule: String, subject: Subject) -> String {
        [rule, subject.object, subject.symbol].compactMap { $0 }.joined(separator: ":")
    }

    /// Drops a trailing period, so messages read the same whoever wrote them.
    static func trimmed(_ text: String) -> String {
        var text = text
        while text.hasSuffix(".") && !text.hasSuffix("..") { text.removeLast() }
        return text
    }
}

extension Finding: Comparable {
    /// Most severe first, then by rule, then by fingerprint.
    public static func < (lhs: Finding, rhs: Finding) -> Bool {
        if lhs.severity != rhs.severity { return lhs.severity > rhs.severity }
        if lhs.rule != rhs.rule { return lhs.rule < rhs.rule }
        return lhs.fingerprint < rhs.fingerprint
    }
}

/// How much a finding matters. Ordered: `note < warning < error`. The names are SARIF's levels.
public enum Severity: String, Codable, Sendable, CaseIterable, Comparable {
    case note
    case warning
    case error

    private var rank: Int {
        switch self {
        case .note: return 0
        case .warning: return 1
        case .error: return 2
        }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
}

/// How findings and diffs name an object: its soname, else its file name, so that the same
/// library built in two folders has one name.
public enum ObjectName {
    /// The last path component of `path`.
    public static func fileName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        let name = String(path[path.index(after: slash)...])
        return name.isEmpty ? path : name
    }

    /// True for glibc's dynamic loader by its file name (`ld-linux-x86-64.so.2`,
    /// `ld-linux-aarch64.so.1`, `ld64.so.2`, `ld.so.1`).
    public static func isDynamicLoader(_ path: String) -> Bool {
        let name = fileName(path)
        return name.hasPrefix("ld-linux") || name.hasPrefix("ld64.so") || name.hasPrefix("ld.so")
    }

    public static func of(_ binary: BinaryInventory) -> String {
        binary.header.soname ?? fileName(binary.path)
    }

    public static func of(_ object: ClosureObject) -> String {
        object.soname ?? fileName(object.path)
    }
}

/// The result of `premain check`: findings of the rules and budgets over the given binaries
/// and reports. Codable; JSON `schemaVersion` 1.
public struct CheckReport: Codable, Sendable, Equatable {
    public var schemaVersion: Int = 1
    public var tool: ToolInfo
    /// What was checked, as given on the command line.
    public var inputs: [String]
    /// Most severe first.
    public var findings: [Finding]
    /// The severity at or above which findings fail the check.
    public var failOn: Severity
    /// Files that could not be read.
    public var errors: [FileError]

    public init(tool: ToolInfo = .current, inputs: [String], findings: [Finding], failOn: Severity,
                errors: [FileError]) {
        self.tool = tool
        self.inputs = inputs
        self.findings = findings
        self.failOn = failOn
        self.errors = errors
    }

    /// Findings at or above `failOn`.
    public var failing: [Finding] { findings.filter { $0.severity >= failOn } }
}
