import PremainTestSupport
import XCTest

@testable import PremainAudit
@testable import PremainJudge
@testable import PremainModel

/// Walks the registry: every rule has evidence, its triggering samples make it fire and its
/// non-triggering samples keep it quiet, and its findings are well formed.
final class RuleRegistryTests: XCTestCase {
    func testIdentifiersAreUniqueSnakeCaseWithDefaultsAndSamples() {
        var seen: Set<String> = []
        for rule in allRules {
            let description = rule.description
            XCTAssertTrue(seen.insert(description.identifier).inserted, "duplicate \(description.identifier)")
            XCTAssertTrue(description.identifier.allSatisfy { $0.isLowercase || $0 == "_" }, description.identifier)
            XCTAssertFalse(description.triggeringSamples.isEmpty, "\(description.identifier) has no triggering sample")
            XCTAssertFalse(
                description.nonTriggeringSamples.isEmpty, "\(description.identifier) has no non-triggering sample")
            XCTAssertFalse(description.summary.hasSuffix("."), description.identifier)
            XCTAssertFalse(description.advice.hasSuffix("."), description.identifier)
        }
        let required = [
            "heavy_static_initializer", "many_static_initializers", "swift_default_argument_on_startup_path",
            "swift_lazy_global_on_startup_path", "relative_relocations_without_relr", "large_export_table",
            "many_closure_objects", "unused_direct_dependency", "missing_dependency", "textrel",
            "copy_relocations", "iostream_static_initializer", "deep_dependency_chain",
        ]
        XCTAssertEqual(Set(required).subtracting(seen), [])
    }

    func testEveryRuleFiresOnItsTriggeringSamplesAndNotOnTheOthers() throws {
        var cache: [String: RuleInput] = [:]
        func input(_ name: String) throws -> RuleInput {
            if let cached = cache[name] { return cached }
            let made = try RuleSamples.input(name)
            cache[name] = made
            return made
        }
        for rule in allRules {
            let description = rule.description
            let config = RuleConfig(description)
            for sample in description.triggeringSamples {
                let findings = rule.init().check(try input(sample), config)
                XCTAssertFalse(findings.isEmpty, "\(description.identifier) should fire on \(sample)")
                for finding in findings {
                    XCTAssertEqual(finding.rule, description.identifier)
                    XCTAssertEqual(finding.severity, description.severity)
                    XCTAssertFalse(finding.message.hasSuffix("."), finding.message)
                    XCTAssertFalse(finding.advice.isEmpty)
                    XCTAssertFalse(
                        finding.fingerprint.contains("0x"), "fingerprint holds an address: \(finding.fingerprint)")
                    XCTAssertFalse(
                        finding.fingerprint.contains("/"), "fingerprint holds a path: \(finding.fingerprint)")
                    if let figure = finding.figure { XCTAssertNotNil(finding.threshold, "\(figure) without threshold") }
                }
            }
            for sample in description.nonTriggeringSamples {
                let findings = rule.init().check(try input(sample), config)
                XCTAssertEqual(findings, [], "\(description.identifier) should not fire on \(sample)")
            }
        }
    }

    func testFindingsNameTheirSubjectsAndFigures() throws {
        let measured = try RuleSamples.input("measured:cxx-static-init/cxx-static-init")
        let heavy = HeavyStaticInitializerRule().check(measured, RuleConfig(HeavyStaticInitializerRule.description))
        let registry = try XCTUnwrap(heavy.first { $0.subject.symbol == "_GLOBAL__sub_I_registry.cpp" })
        XCTAssertEqual(registry.subject.object, "libinit.so")
        // The figure is the input's measured median, and the threshold the rule's default.
        let timed = try XCTUnwrap(measured.functions.first { $0.symbol == "_GLOBAL__sub_I_registry.cpp" })
        XCTAssertEqual(registry.figure, timed.inclusive.medianMs)
        XCTAssertEqual(registry.threshold, 1)
        XCTAssertEqual(registry.fingerprint, "heavy_static_initializer:libinit.so:_GLOBAL__sub_I_registry.cpp")
        let perObject = try XCTUnwrap(heavy.first { $0.subject.symbol == nil && $0.subject.object == "libinit.so" })
        let object = try XCTUnwrap(measured.launches.first?.objects.first { $0.path.hasSuffix("/libinit.so") })
        XCTAssertEqual(perObject.figure, object.initializers?.medianMs)
        XCTAssertEqual(perObject.threshold, 5)

        let swift = SwiftDefaultArgumentOnStartupPathRule().check(
            try RuleSamples.input("measured:swift-startup/swift-startup"),
            RuleConfig(SwiftDefaultArgumentOnStartupPathRule.description))
        XCTAssertEqual(swift.count, 1)
        XCTAssertTrue(swift[0].subject.symbol?.contains("default argument 0 of") == true, "\(swift)")

        let unused = UnusedDirectDependencyRule().check(
            try RuleSamples.input("closure/unused/unused-deps"),
            RuleConfig(UnusedDirectDependencyRule.description))
        XCTAssertEqual(Set(unused.compactMap(\.subject.symbol)), ["libunused.so", "libm.so.6"])
        XCTAssertTrue(unused.allSatisfy { $0.advice.contains("--as-needed") })

        let missing = MissingDependencyRule().check(
            try RuleSamples.input("closure/missing/needs-missing"),
            RuleConfig(MissingDependencyRule.description))
        XCTAssertEqual(missing.map(\.subject.symbol), ["libdoesnotexist.so"])

        let chain = DeepDependencyChainRule().check(
            try RuleSamples.input("rules/chain-app"), RuleConfig(DeepDependencyChainRule.description))
        XCTAssertEqual(chain.first?.figure, 6)
        XCTAssertTrue(chain.first?.message.contains("chain-app → libchain1.so → libchain2.so") == true, "\(chain)")
    }

    func testRelrAdviceDependsOnTheTargetGlibc() throws {
        var input = try RuleSamples.input("relr/librelr-plain.so")
        let config = RuleConfig(RelativeRelocationsWithoutRelrRule.description)
        input.glibc = GlibcVersion(major: 2, minor: 36)
        // The sample is linked by gcc's default, GNU ld: the -Wl, spelling.
        XCTAssertTrue(
            RelativeRelocationsWithoutRelrRule().check(input, config)[0].advice
                .hasPrefix("Pack them into DT_RELR: link with -Wl,-z,pack-relative-relocs"))
        input.glibc = GlibcVersion(major: 2, minor: 31)
        XCTAssertTrue(
            RelativeRelocationsWithoutRelrRule().check(input, config)[0].advice.hasPrefix(
                "Upgrade the target to glibc 2.36"))
        // Against what the running glibc states and what GNU readelf lists, read at run time.
        let running = try XCTUnwrap(HostFacts.glibcVersion.flatMap(GlibcVersion.init))
        XCTAssertEqual(GlibcVersion.definedBy(libcPath: "/lib/x86_64-linux-gnu/libc.so.6"), running)
        let hello = try RuleSamples.path("c-hello/c-hello")
        let required = try XCTUnwrap(HostFacts.newestGlibcRequired(by: hello).flatMap(GlibcVersion.init))
        XCTAssertEqual(GlibcVersion.requiredBy(path: hello), required)
    }

    func testConfigChangesThresholdsSeverityAndDisables() throws {
        let input = try RuleSamples.input("cxx-static-init/libinit.so")
        var config = try ConfigParser.parse(#"{"rules": {"many_static_initializers": {"maxPerObject": 3}}}"#)
        XCTAssertFalse(RuleEngine(config: config).findings(input).contains { $0.rule == "many_static_initializers" })
        config = try ConfigParser.parse(#"{"rules": {"many_static_initializers": {"severity": "error"}}}"#)
        XCTAssertEqual(
            RuleEngine(config: config).findings(input).first { $0.rule == "many_static_initializers" }?.severity, .error
        )
        config = try ConfigParser.parse(#"{"rules": {"iostream_static_initializer": {"enabled": false}}}"#)
        XCTAssertFalse(RuleEngine(config: config).findings(input).contains { $0.rule == "iostream_static_initializer" })
    }

    /// The closure rules give the same findings whether the closure comes from `ldd` (the
    /// evidence above) or from premain's own resolver (what `check` and `diff` use).
    func testClosureRulesAgreeBetweenLddAndTheResolver() throws {
        let rules: [any Rule.Type] = [
            ManyClosureObjectsRule.self, DeepDependencyChainRule.self,
            UnusedDirectDependencyRule.self, MissingDependencyRule.self,
        ]
        for sample in [
            "many-deps/many-deps", "rules/chain-app", "closure/unused/unused-deps", "closure/missing/needs-missing",
            "c-hello/c-hello",
        ] {
            let viaLdd = try RuleSamples.input(sample)
            let loaded = RuleInputLoader(closures: RuleInputLoader.resolvingClosures).load([
                try RuleSamples.path(sample)
            ])
            XCTAssertEqual(loaded.input.closures.count, 1, sample)
            for rule in rules {
                let config = RuleConfig(rule.description)
                XCTAssertEqual(
                    Set(rule.init().check(loaded.input, config).map(\.fingerprint)),
                    Set(rule.init().check(viaLdd, config).map(\.fingerprint)),
                    "\(rule.description.identifier) on \(sample)")
            }
        }
    }
}
