/// One traced launch, reduced to what pairing two builds needs: each traced function's time in
/// this run, bias removed. `premain compare --explain` traces both builds alternately and pairs
/// run i of base with run i of head. Codable, so tests can feed recorded runs.
public struct TracedRun: Codable, Equatable, Sendable {
    /// One traced function's calls in this run, added up.
    public struct Function: Codable, Equatable, Sendable {
        /// Path of the object as the loader mapped it.
        public var object: String
        /// The mangled symbol (for an unnamed initializer entry: "DT_INIT_ARRAY[i]").
        public var symbol: String
        /// The readable name; `nil` when the symbol is not mangled.
        public var demangled: String?
        public var kind: TracedFunctionKind
        /// For an inlined copy: the function it was inlined into.
        public var inlinedInto: String?
        public var source: SourceLocation?
        /// Inclusive time of the run's non-recursive calls, ms.
        public var inclusiveMs: Double
        /// Inclusive minus the traced functions called directly inside it, ms.
        public var exclusiveMs: Double
        public var calls: Int

        public init(
            object: String, symbol: String, demangled: String?, kind: TracedFunctionKind, inlinedInto: String? = nil,
            source: SourceLocation? = nil, inclusiveMs: Double, exclusiveMs: Double, calls: Int
        ) {
            self.object = object
            self.symbol = symbol
            self.demangled = demangled
            self.kind = kind
            self.inlinedInto = inlinedInto
            self.source = source
            self.inclusiveMs = inclusiveMs
            self.exclusiveMs = exclusiveMs
            self.calls = calls
        }
    }

    /// The executable launched (its path), which tells the program's own functions from a
    /// library's.
    public var executable: String
    public var functions: [Function]
    /// ms since birth of the milestones reached ("main", "firstOutput", "exit").
    public var milestones: [String: Double]
    /// The run ended as asked (reached its milestone or exited 0).
    public var succeeded: Bool

    public init(executable: String, functions: [Function], milestones: [String: Double], succeeded: Bool) {
        self.executable = executable
        self.functions = functions
        self.milestones = milestones
        self.succeeded = succeeded
    }
}

/// Both builds traced alternately for `compare --explain`.
public struct TracedPair: Codable, Equatable, Sendable {
    /// In launch order; run i of each side forms pair i.
    public var base: [TracedRun]
    public var head: [TracedRun]
    /// The tracer's bias, subtracted from every call.
    public var biasMs: Double
    /// Wall time of the tracing, seconds.
    public var seconds: Double
    /// What went wrong without stopping it, one sentence each.
    public var notes: [String]

    public init(base: [TracedRun], head: [TracedRun], biasMs: Double, seconds: Double, notes: [String] = []) {
        self.base = base
        self.head = head
        self.biasMs = biasMs
        self.seconds = seconds
        self.notes = notes
    }
}
