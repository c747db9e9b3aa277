import PremainJudge
import PremainModel
import PremainRender
import Testing

/// Findings priced from a recorded measure report: what each costs, what was summed, the Swift
/// toolchain's libraries as one finding, and the order by cost.
struct FindingPricerTests {
    static func object(_ path: String, depth: Int, neededBy: String, needed: [String]) -> ClosureObject {
        ClosureObject(
            path: path, realPath: path, soname: ObjectName.fileName(path), requestedName: ObjectName.fileName(path),
            foundVia: .directPath, searchDirectory: nil, depth: depth, neededBy: neededBy, needed: needed,
            system: false, cost: nil)
    }

    static func summary(_ ms: Double) -> TimeSummary { TimeSummary(samplesMs: [ms, ms, ms])! }

    static func measured(
        _ path: String, role: ObjectMeasurement.Role = .library, mapping: Double?, relocation: Double?,
        initializers: Double? = nil
    ) -> ObjectMeasurement {
        ObjectMeasurement(
            path: path, role: role, initializers: initializers.map(summary), mapping: mapping.map(summary),
            relocation: relocation.map(summary))
    }

    /// tool needs libunused.so (which alone brings libdeep.so), libshared.so (also needed by
    /// libused.so) and libused.so; and three Swift toolchain libraries, two of them unused.
    static var input: RuleInput {
        var closure = DependencyClosure(
            objects: [
                object("/app/libunused.so", depth: 1, neededBy: "tool", needed: ["libdeep.so", "libc.so.6"]),
                object("/app/libdeep.so", depth: 2, neededBy: "libunused.so", needed: []),
                object("/app/libused.so", depth: 1, neededBy: "tool", needed: ["libshared.so"]),
                object("/app/libshared.so", depth: 1, neededBy: "tool", needed: []),
                object("/lib/libc.so.6", depth: 1, neededBy: "tool", needed: []),
                object("/usr/lib/swift/linux/libswiftCore.so", depth: 1, neededBy: "tool", needed: []),
                object(
                    "/usr/lib/swift/linux/libswift_Concurrency.so", depth: 1, neededBy: "tool",
                    needed: ["libswiftCore.so"]),
                object(
                    "/usr/lib/swift/linux/libswift_StringProcessing.so", depth: 1, neededBy: "tool",
                    needed: ["libswiftCore.so"]),
            ], missing: [])
        closure.unusedNeeded = [
            "libunused.so", "libshared.so", "libswift_Concurrency.so", "libswift_StringProcessing.so",
        ]
        var input = RuleInput()
        input.closures = [ProgramClosure(name: "tool", path: "/app/tool", closure: closure)]
        let conditions = MeasureRendererTests.conditions
        var launch = LaunchMeasurement(
            command: ["/app/tool"], runs: 3, warmup: 0, cold: false, conditions: conditions, status: .ok, failures: [],
            outcomes: [], milestones: Milestones([.loaderStart: summary(0.5), .loaderDone: summary(6.5)]),
            objects: [
                measured("/app/tool", role: .executable, mapping: nil, relocation: 0.3),
                measured("/app/libunused.so", mapping: 0.05, relocation: 0.15, initializers: 0.06),
                measured("/app/libdeep.so", mapping: 0.1, relocation: 0.2),
                measured("/app/libshared.so", mapping: 0.4, relocation: 0.4),
                measured("/usr/lib/swift/linux/libswiftCore.so", mapping: 1.0, relocation: 2.0, initializers: 0.5),
                measured("/usr/lib/swift/linux/libswift_Concurrency.so", mapping: 0.25, relocation: 0.25),
                measured("/usr/lib/swift/linux/libswift_StringProcessing.so", mapping: 0.25, relocation: 0.25),
            ], warnings: [])
        launch.breakdown = nil
        input.launches = [launch]
        return input
    }

    static func findings() -> [Finding] {
        RuleEngine().findings(input).filter { $0.rule == "unused_direct_dependency" }
    }

    @Test func anUnusedLibraryCostsItselfAndWhatOnlyItBringsIn() throws {
        let finding = try #require(Self.findings().first { $0.subject.symbol == "libunused.so" })
        let cost = try #require(finding.costBasis)
        #expect(cost.subjects == ["libunused.so", "libdeep.so"])
        #expect(abs((finding.costMs ?? 0) - 0.56) < 1e-9)
        #expect(cost.byKind.map(\.kind) == [.mapping, .relocation, .initializers])
        #expect(
            cost.sentence
                == "costs 0.56 ms per launch (measured, median of 3 runs: mapping 0.15, relocation 0.35, initializers 0.06, of 2 objects)"
        )
    }

    @Test func aLibraryAnotherObjectNeedsCostsNothingToDrop() throws {
        let finding = try #require(Self.findings().first { $0.subject.symbol == "libshared.so" })
        #expect(finding.costMs == 0)
        #expect(
            finding.costBasis?.sentence
                == "costs nothing to remove: libused.so needs libshared.so too, so dropping the entry saves nothing")
    }

    @Test func theSwiftToolchainsLibrariesAreOneFindingPricedByStaticLinking() throws {
        let findings = Self.findings()
        #expect(!findings.contains { $0.subject.symbol == "libswift_Concurrency.so" })
        let grouped = try #require(findings.first { $0.grouped != nil })
        #expect(grouped.fingerprint == "unused_direct_dependency:tool")
        #expect(grouped.grouped?.count == 2)
        #expect(grouped.grouped?.first?.name == "libswift_Concurrency.so")
        #expect(grouped.message.contains("it loads the Swift runtime as 3 shared objects"))
        // Static linking removes loading and relocation of all three toolchain objects, not their initializers.
        #expect(abs((grouped.costMs ?? 0) - 4.0) < 1e-9)
        #expect(grouped.costBasis?.wholeMs == 6.0)
        #expect(grouped.costBasis?.sentence.hasSuffix("of 3 objects), of the loader's 6.00 ms") == true)
        // Sorted by cost within a severity.
        #expect(findings.map(\.costMs) == findings.map(\.costMs).sorted { ($0 ?? -1) > ($1 ?? -1) })
    }

    @Test func withoutAMeasurementNothingIsPriced() {
        var input = Self.input
        input.launches = []
        #expect(RuleEngine().findings(input).allSatisfy { $0.costMs == nil && $0.costBasis == nil })
    }

    @Test func textAndSARIFSayTheCost() throws {
        let findings = Self.findings()
        let report = CheckReport(inputs: ["tool"], findings: findings, failOn: .error, errors: [])
        let text = FindingsTextRenderer.render(report, width: TextFit.unlimited)
        #expect(
            text.contains(
                "  costs 0.56 ms per launch (measured, median of 3 runs: mapping 0.15, relocation 0.35, initializers 0.06, of 2 objects)"
            ))
        #expect(text.contains("    - libswift_Concurrency.so: "))
        let sarif = try SARIFRenderer.render(
            report, catalog: RuleEngine().catalog,
            scope: SourceScope(root: "/app", artifacts: ["/app/tool"], workingDirectory: "/app"))
        #expect(sarif.contains("costs 4.00 ms per launch"))
    }
}
