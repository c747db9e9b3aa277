/// One rule's settings after premain.json is applied over its defaults.
public struct RuleConfig: Sendable, Equatable {
    public var enabled: Bool
    public var severity: Severity
    /// Thresholds by name: the rule's defaults, overridden by premain.json.
    public var values: [String: Double]

    public init(enabled: Bool = true, severity: Severity, values: [String: Double]) {
        self.enabled = enabled
        self.severity = severity
        self.values = values
    }

    /// The defaults of a rule.
    public init(_ description: RuleDescription) {
        self.init(severity: description.severity, values: description.defaults)
    }

    /// The threshold `name`; `0` when neither the defaults nor the config name it (a
    /// programming error the registry test catches).
    public subscript(_ name: String) -> Double { values[name] ?? 0 }
}

/// Every check premain runs: the rules with their effective settings, and the budgets of
/// premain.json. What `premain rules` lists and what SARIF declares as `tool.driver.rules`.
public struct RuleCatalog: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var description: RuleDescription
        /// The defaults with premain.json applied.
        public var settings: RuleConfig

        public init(description: RuleDescription, settings: RuleConfig) {
            self.description = description
            self.settings = settings
        }
    }

    /// A budget or the allowlist check (severity error), by identifier.
    public struct Budget: Sendable, Equatable {
        public var identifier: String
        public var summary: String

        public init(identifier: String, summary: String) {
            self.identifier = identifier
            self.summary = summary
        }
    }

    /// In registry order.
    public var rules: [Entry]
    public var budgets: [Budget]

    public init(rules: [Entry], budgets: [Budget]) {
        self.rules = rules
        self.budgets = budgets
    }
}

/// What a rule is, its defaults, and the samples that prove it: one that must trigger it and
/// one that must not. `premain rules` prints these; SARIF lists them as `tool.driver.rules`.
public struct RuleDescription: Codable, Sendable, Equatable {
    /// snake_case, unique: `heavy_static_initializer`.
    public var identifier: String
    /// One line, no trailing period.
    public var summary: String
    /// What to do in general; each finding says it for its subject too.
    public var advice: String
    public var severity: Severity
    /// Default thresholds by name (`thresholdMs`, `maxObjects`), overridable in premain.json.
    public var defaults: [String: Double]
    /// `true` when the rule needs `premain measure` or `premain trace` data.
    public var measured: Bool
    /// Sample evidence (see `RuleSamples` in the tests): each must make the rule find something.
    public var triggeringSamples: [String]
    /// Each must make the rule find nothing.
    public var nonTriggeringSamples: [String]

    public init(
        identifier: String, summary: String, advice: String, severity: Severity,
        defaults: [String: Double] = [:], measured: Bool = false,
        triggeringSamples: [String], nonTriggeringSamples: [String]
    ) {
        self.identifier = identifier
        self.summary = summary
        self.advice = advice
        self.severity = severity
        self.defaults = defaults
        self.measured = measured
        self.triggeringSamples = triggeringSamples
        self.nonTriggeringSamples = nonTriggeringSamples
    }
}
