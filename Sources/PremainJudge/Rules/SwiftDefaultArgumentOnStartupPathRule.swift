import PremainAudit
import PremainModel

/// A Swift default-argument generator that does real work on the way to first output:
/// it runs at every call that omits the argument.
public struct SwiftDefaultArgumentOnStartupPathRule: Rule {
    public static let description = RuleDescription(
        identifier: "swift_default_argument_on_startup_path",
        summary: "A Swift default argument does slow work on the start-up path",
        advice:
            "Pass the dependency explicitly from a cheap factory, or make the default lazy (an optional resolved on first use) so launch does not pay for it",
        severity: .warning,
        defaults: ["thresholdMs": 1.0],
        measured: true,
        triggeringSamples: ["measured:swift-startup/swift-startup"],
        nonTriggeringSamples: ["measured:swift-startup/swift-startup?SERVICE=0", "measured:c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        slowTracedFunctions(of: .swiftDefaultArgument, input, config)
    }
}
