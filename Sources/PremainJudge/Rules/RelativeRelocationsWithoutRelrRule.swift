import PremainAudit
import PremainModel

/// Many `R_*_RELATIVE` relocations stored as RELA entries (24 bytes each on x86-64) instead
/// of the packed `DT_RELR` form (a few bits each).
public struct RelativeRelocationsWithoutRelrRule: Rule {
    public static let description = RuleDescription(
        identifier: "relative_relocations_without_relr",
        summary: "Many relative relocations are stored unpacked (no DT_RELR)",
        advice:
            "Link with -z pack-relative-relocs in the spelling of the file's toolchain (-Wl, for gcc and clang, -Xlinker for swiftc and SwiftPM, LINKER: for CMake); GNU ld 2.38+, lld 15+ and mold take it, gold does not (switch to lld); the loader needs glibc 2.36 or later",
        severity: .note,
        defaults: ["minRelative": 1000],
        triggeringSamples: ["relr/librelr-plain.so"],
        nonTriggeringSamples: ["relr/librelr-packed.so", "c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        let minimum = config["minRelative"]
        return input.objects.compactMap { binary in
            let unpacked = binary.relocations.relative - binary.relocations.relrAddresses
            guard binary.relocations.relrAddresses == 0, Double(unpacked) >= minimum else { return nil }
            let how = LinkerAdvice.packRelativeRelocations(binary.toolchain)
            let advice: String
            if let glibc = input.glibc, glibc >= .relrSupport {
                advice =
                    "Pack them into DT_RELR: \(how). The target glibc \(glibc) applies DT_RELR, and the table shrinks from \(unpacked * 24) bytes to a few hundred"
            } else if let glibc = input.glibc {
                advice =
                    "Upgrade the target to glibc 2.36 or later (it has \(glibc)), then pack them into DT_RELR: \(how)"
            } else {
                advice = "If the target runs glibc 2.36 or later, pack them into DT_RELR: \(how)"
            }
            return finding(
                config, RuleInput.subject(binary), figure: Double(unpacked), threshold: minimum, unit: "relocations",
                message:
                    "\(ObjectName.of(binary)) has \(unpacked) relative relocations without DT_RELR, at least \(Int(minimum)) flagged",
                advice: advice)
        }
    }
}
