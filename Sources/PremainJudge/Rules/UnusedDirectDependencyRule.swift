import PremainAudit
import PremainModel

/// A `DT_NEEDED` entry of a program from which it imports nothing: loaded, relocated and
/// initialized for no reason. (The closure records this for the program only, as `ldd -u`
/// does, not for each library in it.)
public struct UnusedDirectDependencyRule: Rule {
    public static let description = RuleDescription(
        identifier: "unused_direct_dependency",
        summary: "A direct dependency provides nothing the object uses",
        advice:
            "Link with -Wl,--as-needed (or drop the library from the link line); for a Swift toolchain library, which the Swift driver links by itself, drop the import that brings it or link the toolchain statically",
        severity: .warning,
        triggeringSamples: ["closure/unused/unused-deps"],
        nonTriggeringSamples: ["c-hello/c-hello"])

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        input.closures.flatMap { program -> [Finding] in
            // The Swift toolchain's libraries share one fix (link the runtime statically): one
            // finding for all of them, listing each, rather than one paragraph per library.
            let toolchain = program.closure.unusedNeeded.filter(SwiftToolchainLibraries.contains)
            let grouped = toolchain.count >= 2 && (program.toolchain?.isSwift ?? true)
            var findings = program.closure.unusedNeeded.filter { !grouped || !toolchain.contains($0) }.map { name in
                finding(
                    config, RuleInput.subject(program, library: name),
                    message: "\(program.name) needs \(name) but uses none of its symbols",
                    advice: LinkerAdvice.dropUnused(name, from: program.name, toolchain: program.toolchain))
            }
            if grouped {
                let runtime = program.closure.objects.filter {
                    SwiftToolchainLibraries.contains(ObjectName.fileName($0.path))
                }
                var result = finding(
                    config, RuleInput.subject(program),
                    message:
                        "\(program.name) needs \(toolchain.count) Swift toolchain libraries but uses none of their symbols "
                        + "(\(toolchain.joined(separator: ", "))); it loads the Swift runtime as \(runtime.count) shared objects",
                    advice:
                        "Link the Swift runtime statically (swift build --static-swift-stdlib, swiftc -static-stdlib): "
                        + "the loading and relocation of all \(runtime.count) objects go, their code stays; or drop what "
                        + "brings each one, as listed")
                result.grouped = toolchain.map { name in
                    let how = SwiftToolchainLibraries.howToDrop(name) ?? "the Swift toolchain's"
                    let alternative = SwiftToolchainLibraries.staticAlternative
                    return Finding.Member(
                        name: name,
                        advice: how.hasSuffix(alternative)
                            ? how.dropLast(alternative.count) + "or link statically" : how)
                }
                findings.append(result)
            }
            return findings
        }
    }
}
