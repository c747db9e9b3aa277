import PremainAudit
import PremainModel

/// A `DT_NEEDED` entry from which the object imports nothing: loaded, relocated and
/// initialized for no reason.
public struct UnusedDirectDependencyRule: Rule {
    public static let description = RuleDescription(
        identifier: "unused_direct_dependency",
        summary: "A direct dependency provides nothing the object uses",
        advice: "Link with -Wl,--as-needed (or drop the library from the link line)",
        severity: .warning,
        triggeringSamples: ["closure/unused/unused-deps"],
        nonTriggeringSamples: ["c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        var findings: [Finding] = []
        for closure in input.closures {
            for name in closure.unusedNeeded {
                findings.append(unused(name, of: closure.program, config))
            }
            for object in closure.objects where !object.system {
                for name in object.unusedNeeded { findings.append(unused(name, of: object.name, config)) }
            }
        }
        return findings
    }

    private func unused(_ name: String, of owner: String, _ config: RuleConfig) -> Finding {
        finding(config, Finding.Subject(object: owner, symbol: name),
                message: "\(owner) needs \(name) but uses none of its symbols",
                advice: "Link \(owner) with -Wl,--as-needed or remove \(name) from its link line")
    }
}
