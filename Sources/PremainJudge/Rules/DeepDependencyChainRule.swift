import PremainAudit
import PremainModel

/// A long chain of libraries each needing the next: every level is searched for along its
/// own paths, and a slow or missing link is hard to see from the program.
public struct DeepDependencyChainRule: Rule {
    public static let description = RuleDescription(
        identifier: "deep_dependency_chain",
        summary: "A chain of dependencies is deep",
        advice: "Let the program link its libraries directly and flatten wrapper libraries that only re-export others",
        severity: .note,
        defaults: ["maxDepth": 4],
        triggeringSamples: ["rules/chain-app"],
        nonTriggeringSamples: ["c-hello/c-hello", "closure/rpath-vs-runpath/indirect/use-indirect"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        let limit = config["maxDepth"]
        return input.closures.compactMap { program in
            guard let deepest = program.closure.objects.max(by: { $0.depth < $1.depth }), Double(deepest.depth) > limit
            else {
                return nil
            }
            let chain = program.chain(to: deepest)
            return finding(
                config, RuleInput.subject(program), figure: Double(deepest.depth),
                threshold: limit, unit: "levels",
                message:
                    "\(program.name) reaches \(ObjectName.of(deepest)) through \(deepest.depth) levels of DT_NEEDED (\(chain.joined(separator: " → "))), more than \(Int(limit))",
                advice: Self.description.advice)
        }
    }
}
