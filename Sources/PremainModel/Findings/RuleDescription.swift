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

    public init(identifier: String, summary: String, advice: String, severity: Severity,
                defaults: [String: Double] = [:], measured: Bool = false,
                triggeringSamples: [String], nonTriggeringSamples: [String]) {
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
