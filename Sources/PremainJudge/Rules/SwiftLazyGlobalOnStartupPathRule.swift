import PremainAudit
import PremainModel

/// A Swift global whose one-time initializer runs on the way to first output and is slow.
public struct SwiftLazyGlobalOnStartupPathRule: Rule {
    public static let description = RuleDescription(
        identifier: "swift_lazy_global_on_startup_path",
        summary: "A Swift global's one-time initializer does slow work on the start-up path",
        advice:
            "Do not touch the global before first output, compute it in the background, or make the value cheaper (precomputed data instead of work at first access)",
        severity: .warning,
        defaults: ["thresholdMs": 1.0],
        measured: true,
        triggeringSamples: ["measured:swift-startup/swift-startup"],
        nonTriggeringSamples: ["measured:swift-startup/swift-startup?GLOBAL=0", "measured:c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        slowTracedFunctions(of: .swiftLazyGlobal, input, config)
    }
}
