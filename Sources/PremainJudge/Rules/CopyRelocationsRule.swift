import PremainAudit
import PremainModel

/// `R_*_COPY`: the executable copies a library's data object at start-up, and the library's
/// own accesses go through the copy; the layout of that object becomes ABI.
public struct CopyRelocationsRule: Rule {
    public static let description = RuleDescription(
        identifier: "copy_relocations",
        summary: "An executable has copy relocations",
        advice:
            "Build the executable as PIE with -fPIC-style access to external data (-fno-direct-access-external-data on Clang, -mno-direct-extern-access on GCC 12+), or access the library's data through functions",
        severity: .note,
        defaults: ["maxCopy": 0],
        triggeringSamples: ["rules/copy-reloc"],
        nonTriggeringSamples: ["c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        let limit = config["maxCopy"]
        return input.objects.compactMap { binary in
            guard Double(binary.relocations.copy) > limit else { return nil }
            return finding(
                config, RuleInput.subject(binary), figure: Double(binary.relocations.copy), threshold: limit,
                unit: "relocations",
                message:
                    "\(ObjectName.of(binary)) has \(binary.relocations.copy) copy relocations: the loader copies library data into it at start-up",
                advice: Self.description.advice)
        }
    }
}
