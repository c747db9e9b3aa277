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
