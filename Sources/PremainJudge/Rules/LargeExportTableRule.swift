import PremainAudit
import PremainModel

/// A large dynamic export table: more symbols to hash, to look up and to bind, and no
/// intra-library calls without the PLT.
public struct LargeExportTableRule: Rule {
    public static let description = RuleDescription(
        identifier: "large_export_table",
        summary: "An object exports many dynamic symbols",
        advice:
            "Build with -fvisibility=hidden and mark the API with __attribute__((visibility(\"default\"))), or list the API in a version script (-Wl,--version-script); -Wl,-Bsymbolic-functions binds the library's own calls locally",
        severity: .note,
        defaults: ["maxExports": 1000],
        triggeringSamples: ["many-exports/libexports-default.so"],
        nonTriggeringSamples: ["many-exports/libexports-hidden.so", "c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        let limit = config["maxExports"]
        return input.objects.compactMap { binary in
            guard Double(binary.symbols.exported) > limit else { return nil }
            return finding(
                config, RuleInput.subject(binary), figure: Double(binary.symbols.exported), threshold: limit,
                unit: "symbols",
                message:
                    "\(ObjectName.of(binary)) exports \(binary.symbols.exported) dynamic symbols (\(binary.symbols.exportedByType.function) functions), more than \(Int(limit))",
                advice: Self.description.advice)
        }
    }
}
