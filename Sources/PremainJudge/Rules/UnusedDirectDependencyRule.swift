import PremainAudit
import PremainModel

/// A `DT_NEEDED` entry of a program from which it imports nothing: loaded, relocated and
/// initialized for no reason. (The closure records this for the program only, as `ldd -u`
/// does, not for each library in it.)
public struct UnusedDirectDependencyRule: Rule {
    public static let description = RuleDescription(
        identifier: "unused_direct_dependency",
        summary: "A direct dependency provides nothing the object uses",
        advice: "Link with -Wl,--as-needed (or drop the library from the link line); for a Swift toolchain library, which the Swift driver links by itself, drop the import that brings it or link the toolchain statically",
        severity: .warning,
        triggeringSamples: ["closure/unused/unused-deps"],
        nonTriggeringSamples: ["c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        input.closures.flatMap { program in
            program.closure.unusedNeeded.map { name in
                finding(config, RuleInput.subject(program, library: name),
                        message: "\(program.name) needs \(name) but uses none of its symbols",
                        advice: LinkerAdvice.dropUnused(name, from: program.name, toolchain: program.toolchain))
            }
        }
    }
}
