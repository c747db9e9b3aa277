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
    /// Findings folded into this one because their fix is the same, each with its own way
    /// out; `nil` for a finding of its own.
    public var grouped: [Member]?
    /// What the finding costs per launch, in milliseconds, from a measure or trace report (the
    /// medians of what `costBasis` lists); `nil` when nothing measured it.
    public var costMs: Double?
    public var costBasis: FindingCost?
    /// `check --verify`: the saving measured on a patched copy; `nil` when not verified.
    public var verification: SavingVerification?

    /// One finding folded into a grouped one: its subject (a library's name) and its own fix.
    public struct Member: Codable, Sendable, Equatable, Hashable {
        public var name: String
        public var advice: String

        public init(name: String, advice: String) {
            self.name = name
            self.advice = advice
        }

        /// "NAME: advice".
        public var line: String { name + ": " + advice }
    }

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

    public init(
        rule: String, severity: Severity, subject: Subject, figure: Double? = nil,
        threshold: Double? = nil, unit: String? = nil, message: String, advice: String,
        location: SourceLocation? = nil
    ) {
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

    /// The message, then what it costs when priced: "…; costs 0.26 ms per launch (measured, …)".
    public var pricedMessage: String {
        [message, costBasis?.sentence, verification?.sentence].compactMap { $0 }.joined(separator: "; ")
    }

    /// The advice, then the grouped findings, one per line ("- NAME: how").
    public var adviceWithGroup: String {
        guard let grouped, !grouped.isEmpty else { return advice }
        return advice + ":\n" + grouped.map { "- " + $0.line }.joined(separator: "\n")
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
    /// Most severe first, then costliest (priced before unpriced), then by rule, then by
    /// fingerprint.
    public static func < (lhs: Finding, rhs: Finding) -> Bool {
        if lhs.severity != rhs.severity { return lhs.severity > rhs.severity }
        if lhs.costMs != rhs.costMs { return (lhs.costMs ?? -1) > (rhs.costMs ?? -1) }
        if lhs.rule != rhs.rule { return lhs.rule < rhs.rule }
        return lhs.fingerprint < rhs.fingerprint
    }
}

/// What a finding's cost is made of: measured medians, one part per object and kind.
public struct FindingCost: Codable, Sendable, Equatable, Hashable {
    public enum Source: String, Codable, Sendable {
        /// A `premain measure` report: each object's loading, relocation and initializers.
        case measure
        /// A `premain trace` report: one function's exclusive time.
        case trace
    }

    /// What was timed.
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case mapping, relocation, initializers, function
    }

    public struct Part: Codable, Sendable, Equatable, Hashable {
        public var kind: Kind
        /// The object (soname or file name) or the function.
        public var subject: String
        public var ms: Double

        public init(kind: Kind, subject: String, ms: Double) {
            self.kind = kind
            self.subject = subject
            self.ms = ms
        }
    }

    public var source: Source
    /// Runs the medians are over.
    public var runs: Int
    public var parts: [Part]
    /// The whole it is part of, when that says more ("the loader's 6.2 ms"): its name and ms.
    public var ofWhole: String?
    public var wholeMs: Double?
    /// Why the cost is 0 though the object was measured ("libswiftCore.so needs libm.so.6
    /// too…"); `nil` otherwise.
    public var note: String?

    public init(
        source: Source, runs: Int, parts: [Part], ofWhole: String? = nil, wholeMs: Double? = nil,
        note: String? = nil
    ) {
        self.source = source
        self.runs = runs
        self.parts = parts
        self.ofWhole = ofWhole
        self.wholeMs = wholeMs
        self.note = note
    }

    /// The sum of the parts.
    public var totalMs: Double { parts.reduce(0) { $0 + $1.ms } }

    /// The parts' total per kind, in `Kind` order, kinds with no part left out.
    public var byKind: [(kind: Kind, ms: Double)] {
        Kind.allCases.compactMap { kind in
            let matching = parts.filter { $0.kind == kind }
            return matching.isEmpty ? nil : (kind, matching.reduce(0) { $0 + $1.ms })
        }
    }

    /// Distinct objects or functions among the parts.
    public var subjects: [String] {
        var seen: Set<String> = []
        return parts.map(\.subject).filter { seen.insert($0).inserted }
    }

    /// "costs 0.26 ms per launch (measured: mapping 0.05, relocation 0.15, initializers 0.06)",
    /// with "of 14 objects" and "of the loader's 6.2 ms" when they apply.
    public var sentence: String {
        if let note, parts.isEmpty { return "costs nothing to remove: \(note)" }
        let split = byKind.map { "\($0.kind.rawValue) \(Milliseconds.number($0.ms, decimals: 2))" }.joined(
            separator: ", ")
        var text =
            "costs \(Milliseconds.number(totalMs, decimals: 2)) ms per launch (\(source == .trace ? "traced" : "measured"), median of \(runs) run\(runs == 1 ? "" : "s"): \(split)"
        if subjects.count > 1, source == .measure { text += ", of \(subjects.count) objects" }
        text += ")"
        if let ofWhole, let wholeMs { text += ", of \(ofWhole) \(Milliseconds.number(wholeMs, decimals: 2)) ms" }
        return text
    }
}

/// A saving measured rather than estimated: the program against a copy with the change made
/// (`check --verify`), paired and interleaved.
public struct SavingVerification: Codable, Sendable, Equatable, Hashable {
    /// What the copy changed: "removed DT_NEEDED libfoo.so".
    public var change: String
    /// The finding's estimate (`costMs`), for comparison.
    public var estimateMs: Double?
    /// The milestone the saving is measured at (main, else first output).
    public var quantity: TimeComparison.Quantity?
    /// Median paired saving (original − copy), and its interval at `level`.
    public var savingMs: Double?
    public var savingLowMs: Double?
    public var savingHighMs: Double?
    public var level: Double?
    public var pairs: Int?
    public var runsPerSide: Int?
    /// The comparison's verdict on the copy: `improvement` when the saving is beyond the
    /// threshold.
    public var verdict: QuantityResult?
    /// Why it could not be verified (patchelf missing, the copy failed to start).
    public var error: String?

    public init(change: String, estimateMs: Double?) {
        self.change = change
        self.estimateMs = estimateMs
    }

    /// "verified on a copy (removed DT_NEEDED libfoo.so): saves 0.31 ms at main (95 % interval
    /// 0.22 to 0.40 ms, 30 pairs)".
    public var sentence: String {
        if let error { return "not verified (\(change)): \(error)" }
        guard let saving = savingMs, let low = savingLowMs, let high = savingHighMs else {
            return "not verified (\(change)): no time to compare"
        }
        let level = Milliseconds.number((self.level ?? 0.95) * 100, decimals: 0)
        let at = quantity?.shortTitle ?? "main"
        return "verified on a copy (\(change)): saves \(Milliseconds.number(saving, decimals: 2)) ms at \(at) "
            + "(\(level) % interval \(Milliseconds.number(low, decimals: 2)) to \(Milliseconds.number(high, decimals: 2)) ms, "
            + "\(pairs ?? 0) pairs)" + (low <= 0 && high >= 0 ? ", not distinguishable from no saving" : "")
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
public struct CheckReport: Codable, Sendable, Equatable, KindedReport {
    public static let kind = ReportKind.check
    public var schemaVersion: Int = 1
    public var kind = ReportKindField<CheckReport>()
    public var tool: ToolInfo
    /// What was checked, as given on the command line.
    public var inputs: [String]
    /// Most severe first.
    public var findings: [Finding]
    /// The severity at or above which findings fail the check.
    public var failOn: Severity
    /// Files that could not be read.
    public var errors: [FileError]
    /// What was left out of the inputs and why ("the measurements of /x/app (build-id …) were
    /// ignored: …"); `nil` when nothing was.
    public var warnings: [String]?

    public init(
        tool: ToolInfo = .current, inputs: [String], findings: [Finding], failOn: Severity,
        errors: [FileError], warnings: [String]? = nil
    ) {
        self.tool = tool
        self.inputs = inputs
        self.findings = findings
        self.failOn = failOn
        self.errors = errors
        self.warnings = warnings
    }

    /// Findings at or above `failOn`.
    public var failing: [Finding] { findings.filter { $0.severity >= failOn } }
}
