import PremainAudit
import PremainModel

/// A `DT_NEEDED` entry the loader will not find: the program does not start.
public struct MissingDependencyRule: Rule {
    public static let description = RuleDescription(
        identifier: "missing_dependency",
        summary: "A needed library cannot be found",
        advice:
            "Install the library, ship it beside the program with DT_RUNPATH $ORIGIN-relative paths, or fix the search path",
        severity: .error,
        triggeringSamples: ["closure/missing/needs-missing"],
        nonTriggeringSamples: ["c-hello/c-hello", "closure/origin/bin/origin-app"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        input.closures.flatMap { program in
            program.closure.missing.map { missing in
                finding(
                    config, RuleInput.subject(program, library: missing.name),
                    message:
                        "\(missing.name), needed by \(ObjectName.fileName(missing.neededBy)), is not found: \(program.name) will not start",
                    advice: Self.description.advice)
            }
        }
    }
}
