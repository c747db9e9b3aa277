import PremainAudit
import PremainModel

/// An object with many static initializers of its own: each one runs before main, pages in
/// code, and is a place where start-up work grows unnoticed.
public struct ManyStaticInitializersRule: Rule {
    public static let description = RuleDescription(
        identifier: "many_static_initializers",
        summary: "An object runs many static initializers before main",
        advice:
            "Remove globals with dynamic initialization (constexpr or constinit where possible, function-local statics otherwise) and avoid __attribute__((constructor))",
        severity: .warning,
        defaults: ["maxPerObject": 2],
        triggeringSamples: ["cxx-static-init/libinit.so"],
        nonTriggeringSamples: ["c-hello/c-hello", "cxx-static-init/cxx-static-init"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        let limit = config["maxPerObject"]
        return input.objects.compactMap { binary in
            let own = binary.initializers.entries.filter { !$0.toolchain }
            guard Double(own.count) > limit else { return nil }
            let names = own.map { $0.name ?? $0.demangled ?? $0.symbol ?? $0.address ?? "?" }
            return finding(
                config, RuleInput.subject(binary), figure: Double(own.count), threshold: limit, unit: "initializers",
                message:
                    "\(ObjectName.of(binary)) runs \(own.count) static initializers of its own before main (\(names.joined(separator: ", "))), more than \(Int(limit))",
                advice: Self.description.advice, location: own.firstLocation)
        }
    }
}
