import PremainAudit
import PremainModel

/// `premain.json` at the repository root: rule settings, budgets, the initializer allowlist
/// and the thresholds of `premain diff`. Every key is optional; an empty object means the
/// defaults. Read with `ConfigParser.parse` (or `ConfigParser.load`), which names the key of
/// any mistake.
public struct PremainConfig: Sendable, Equatable {
    /// Per-rule overrides by rule identifier.
    public var rules: [String: RuleOverride] = [:]
    public var budgets = Budgets()
    /// Objects whose static initializers are known and counted exactly.
    public var allowlist: [AllowedInitializers] = []
    /// premain.json's `diff` section; its `failOn` is the default (`error`) until the command
    /// line sets it from `failOn` below or `--fail-on`.
    public var diff = DiffSettings()
    /// premain.json's `compare` section: thresholds and run budget of `premain compare`.
    public var compare = CompareSettings()
    /// The severity at or above which findings fail `check` and `diff`; `nil`: `--fail-on`
    /// or its default decides.
    public var failOn: Severity?
    /// `"failOn": "never"`: findings never fail (as `--fail-on never`); `--fail-on` still wins.
    public var failNever = false
    /// premain.json's `launches`: the launch matrix every launching command takes; `[]` when
    /// none is declared (the command line's launch is then the only one).
    public var launches: [DeclaredLaunch] = []

    public init() {}

    public struct RuleOverride: Sendable, Equatable {
        public var enabled: Bool?
        public var severity: Severity?
        /// Threshold overrides by the names in the rule's `defaults`.
        public var values: [String: Double] = [:]

        public init(enabled: Bool? = nil, severity: Severity? = nil, values: [String: Double] = [:]) {
            self.enabled = enabled
            self.severity = severity
            self.values = values
        }
    }

    /// Limits that fail the check when exceeded; `nil` means no limit.
    public struct Budgets: Sendable, Equatable {
        /// Own static initializers (toolchain entries left out) of any object not in the allowlist.
        public var maxInitializersPerObject: Int?
        /// Objects in a program's closure (the interpreter included).
        public var maxClosureObjects: Int?
        /// Median time from exec to main, in ms.
        public var maxMedianMsToMain: Double?
        /// Median time from exec to the first byte of output, in ms.
        public var maxMedianMsToFirstOutput: Double?
        /// Median inclusive time of any one function on the start-up path (an initializer, a
        /// Swift lazy global or default argument), in ms.
        public var maxMsPerFunction: Double?
        /// The same per kind (`swiftLazyGlobal`, `swiftDefaultArgument`,
        /// `cxxTranslationUnitInitializer`, `cxxGlobal`, `constructorFunction`, `staticInitializer`); a kind's
        /// limit wins over `maxMsPerFunction`.
        public var maxMsPerFunctionKind: [TracedFunctionKind: Double] = [:]
        /// Named functions with a limit of their own, which wins over both.
        public var functions: [FunctionBudget] = []

        public init(
            maxInitializersPerObject: Int? = nil, maxClosureObjects: Int? = nil,
            maxMedianMsToMain: Double? = nil, maxMedianMsToFirstOutput: Double? = nil
        ) {
            self.maxInitializersPerObject = maxInitializersPerObject
            self.maxClosureObjects = maxClosureObjects
            self.maxMedianMsToMain = maxMedianMsToMain
            self.maxMedianMsToFirstOutput = maxMedianMsToFirstOutput
        }

        /// The limit of a function: its own, else its kind's, else `maxMsPerFunction`; `nil`
        /// when none applies.
        public func limit(symbol: String, demangled: String?, kind: TracedFunctionKind) -> (ms: Double, key: String)? {
            let display = SwiftName.display(symbol: symbol, demangled: demangled)
            let readable = demangled.map(SwiftName.readable)
            if let own = functions.first(where: {
                $0.name == symbol || $0.name == demangled || $0.name == display || $0.name == readable
            }) {
                return (own.maxMs, "budgets.functions \"\(own.name)\"")
            }
            if let byKind = maxMsPerFunctionKind[kind] {
                return (byKind, "budgets.maxMsPerFunctionKind.\(kind.rawValue)")
            }
            return maxMsPerFunction.map { ($0, "budgets.maxMsPerFunction") }
        }
    }

    /// A limit on one function, by its symbol, demangled name or the name reports show.
    public struct FunctionBudget: Sendable, Equatable {
        public var name: String
        public var maxMs: Double

        public init(name: String, maxMs: Double) {
            self.name = name
            self.maxMs = maxMs
        }
    }

    /// One object's known static initializers: the exact count, optionally the names.
    public struct AllowedInitializers: Sendable, Equatable {
        /// Soname or file name.
        public var object: String
        /// Exact number of own static initializers; more or fewer fails.
        public var count: Int
        /// The initializers' symbols (demangled or raw); `nil`: only the count is checked.
        public var symbols: [String]?
        /// Why they are accepted.
        public var reason: String

        public init(object: String, count: Int, symbols: [String]? = nil, reason: String) {
            self.object = object
            self.count = count
            self.symbols = symbols
            self.reason = reason
        }
    }
}
