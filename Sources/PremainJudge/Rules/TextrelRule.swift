import PremainAudit
import PremainModel

/// `DT_TEXTREL`: the loader must make code pages writable to patch them, copying each page
/// and keeping it private, and SELinux or hardened kernels may refuse it.
public struct TextrelRule: Rule {
    public static let description = RuleDescription(
        identifier: "textrel",
        summary: "An object has text relocations (DT_TEXTREL)",
        advice:
            "Compile every object file of it with -fPIC (or -fPIE for executables); link with -Wl,-z,text to find the culprit",
        severity: .error,
        triggeringSamples: ["rules/libtextrel.so"],
        nonTriggeringSamples: ["c-hello/c-hello", "rules/libvar.so"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        input.objects.compactMap { binary in
            guard binary.dynamic.textRel else { return nil }
            return finding(
                config, RuleInput.subject(binary),
                message:
                    "\(ObjectName.of(binary)) has text relocations: the loader writes into its code pages at start-up",
                advice: Self.description.advice)
        }
    }
}
