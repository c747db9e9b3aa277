import PremainAudit
import PremainModel

/// Many objects in a program's closure: each one is opened, mapped, relocated and
/// initialized before main.
public struct ManyClosureObjectsRule: Rule {
    public static let description = RuleDescription(
        identifier: "many_closure_objects",
        summary: "The loader maps many objects before main",
        advice:
            "Merge small libraries, link rarely used ones statically or load them with dlopen when needed, and drop unused dependencies (-Wl,--as-needed)",
        severity: .warning,
        defaults: ["maxObjects": 25],
        triggeringSamples: ["many-deps/many-deps"],
        nonTriggeringSamples: ["c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        let limit = config["maxObjects"]
        return input.closures.compactMap { program in
            let objects = program.closure.objects
            guard Double(objects.count) > limit else { return nil }
            let own = objects.filter { !$0.system }.count
            return finding(
                config, RuleInput.subject(program), figure: Double(objects.count), threshold: limit,
                unit: "objects",
                message:
                    "\(program.name) loads \(objects.count) objects before main (\(own) outside the system folders), more than \(Int(limit))",
                advice: Self.description.advice)
        }
    }
}
