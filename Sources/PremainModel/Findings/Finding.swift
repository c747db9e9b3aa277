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
                threshold: Double? = nil, unit: String? = nil, message: String, advice: String) {
        self.rule = rule
        self.severity = severity
        self.subject = subject
        self.figure = figure
        self.threshold = threshold
        self.unit = unit
        self.message = Finding.trimmed(message)
        self.advice = Finding.trimmed(advice)
        self.fingerprint = Finding.fingerprint(rule: rule, subject: subject)
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
