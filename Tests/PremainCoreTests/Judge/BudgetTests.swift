import PremainTestSupport
import XCTest

@testable import PremainJudge
@testable import PremainModel

final class BudgetTests: XCTestCase {
    func testConfigErrorsNameTheKey() {
        func error(_ text: String) -> String {
            do {
                _ = try ConfigParser.parse(text)
                return "no error"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(
            error(#"{"budgets": {"maxClosureObjects": "many"}}"#),
            "premain.json: budgets.maxClosureObjects: expected a whole number of at least 0, found a string")
        XCTAssertEqual(
            error(#"{"budget": {}}"#).hasPrefix("premain.json: budget: unknown key; expected one of rules, budgets"),
            true)
        XCTAssertEqual(
            error(#"{"rules": {"heavy_static_initializer": {"thresholdMs": -1}}}"#),
            "premain.json: rules.heavy_static_initializer.thresholdMs: expected a number of at least 0, found -1.0")
        XCTAssertEqual(
            error(#"{"rules": {"no_such_rule": {}}}"#),
            "premain.json: rules.no_such_rule: unknown rule; 'premain rules' lists the rules")
        XCTAssertEqual(
            error(#"{"rules": {"textrel": {"severity": "fatal"}}}"#),
            "premain.json: rules.textrel.severity: expected one of note, warning, error, found 'fatal'")
        XCTAssertEqual(
            error(#"{"allowlist": [{"object": "libinit.so", "count": 3}]}"#),
            "premain.json: allowlist[0].reason: missing; expected a string")
        XCTAssertEqual(error("{"), "premain.json: not valid JSON: expected a key at byte 1")
        XCTAssertEqual(
            error(#"{"diff": {"alpha": 2}}"#), "premain.json: diff.alpha: expected a number between 0 and 1, found 2.0")
    }

    func testTheRepositoryConfigParses() throws {
        let config = try ConfigParser.load(path: Repository.root + "/premain.json")
        XCTAssertNotNil(config.budgets.maxClosureObjects)
    }

    func testAllowlistFailsInBothDirectionsAndSaysHowToUpdate() throws {
        let input = try RuleSamples.input("cxx-static-init/libinit.so")
        func findings(_ json: String) throws -> [Finding] {
            BudgetChecker.check(input, try ConfigParser.parse(json))
        }
        let exact =
            #"{"allowlist": [{"object": "libinit.so", "count": 3, "reason": "plugin registry", "symbols": ["_GLOBAL__sub_I_registry.cpp", "_GLOBAL__sub_I_plugins.cpp", "premain_lib_ctor_c"]}]}"#
        XCTAssertEqual(try findings(exact), [])
        let fewer = try findings(#"{"allowlist": [{"object": "libinit.so", "count": 2, "reason": "r"}]}"#)
        XCTAssertEqual(fewer.count, 1)
        XCTAssertTrue(fewer[0].message.contains("1 more than the 2 allowed"), fewer[0].message)
        XCTAssertTrue(fewer[0].advice.contains("\"count\": 3"), fewer[0].advice)
        let more = try findings(#"{"allowlist": [{"object": "libinit.so", "count": 4, "reason": "r"}]}"#)
        XCTAssertTrue(more[0].message.contains("1 fewer than the 4 listed"), more[0].message)
        XCTAssertTrue(
            more[0].advice.hasPrefix("Update the allowlist entry for libinit.so in premain.json: \"count\": 3"),
            more[0].advice)
        let renamed = try findings(
            #"{"allowlist": [{"object": "libinit.so", "count": 3, "reason": "r", "symbols": ["_GLOBAL__sub_I_registry.cpp", "_GLOBAL__sub_I_plugins.cpp", "old_ctor"]}]}"#
        )
        XCTAssertTrue(renamed[0].message.contains("not in the allowlist: premain_lib_ctor_c"), renamed[0].message)
        XCTAssertTrue(renamed[0].message.contains("no longer runs listed initializers: old_ctor"), renamed[0].message)
    }

    func testBudgetsOnInitializersClosureAndTime() throws {
        var input = try RuleSamples.input("many-deps/many-deps")
        input.objects.append(try RuleSamples.input("cxx-static-init/libinit.so").objects[0])
        input.launches = [
            SelfTimedRun.measurement(
                command: "many-deps", runs: 5,
                milestones: Milestones([
                    .main: TimeSummary(samplesMs: [12]), .firstOutput: TimeSummary(samplesMs: [13]),
                ]))
        ]
        let config = try ConfigParser.parse(
            #"{"budgets": {"maxInitializersPerObject": 2, "maxClosureObjects": 31, "maxMedianMsToMain": 10, "maxMedianMsToFirstOutput": 20}}"#
        )
        let rules = Set(BudgetChecker.check(input, config).map(\.rule))
        XCTAssertEqual(rules, ["budget_initializers_per_object", "budget_closure_objects", "budget_time_to_main"])
        let relaxed = try ConfigParser.parse(
            #"{"budgets": {"maxInitializersPerObject": 3, "maxClosureObjects": 40, "maxMedianMsToMain": 15}}"#)
        XCTAssertEqual(BudgetChecker.check(input, relaxed), [])
    }

    /// A launch's own budgets (issue 35): each milestone over its limit is one error finding
    /// naming the row; one at its limit, or one the row did not reach, is not.
    func testALaunchsOwnBudgetsAreCheckedPerMilestone() {
        let launch = DeclaredLaunch(
            name: "format", run: ["bin/tool", "format", "a.swift"], budgets: [.main: 2, .firstOutput: 5, .exit: 9])
        let over = BudgetChecker.launchBudgets(
            launch, row: "format (cold)", medians: [.main: 2.5, .firstOutput: 5], runs: 20)
        XCTAssertEqual(over.map(\.rule), ["budget_launch_median"])
        XCTAssertEqual(over.first?.subject.object, "tool")
        XCTAssertEqual(over.first?.subject.symbol, "format (cold)")
        XCTAssertEqual(over.first?.threshold, 2)
        XCTAssertEqual(
            over.first?.message,
            "launch format (cold) reaches main after 2.500 ms (median of 20 runs), the budget is 2.000 ms")
        XCTAssertEqual(BudgetChecker.launchBudgets(launch, row: "format", medians: [:], runs: 20), [])
        XCTAssertTrue(BudgetChecker.descriptions.contains { $0.identifier == "budget_launch_median" })
    }

    /// `check` of a measure report over the launch matrix holds each row to its launch's budgets.
    func testCheckHoldsAMeasuredRowToItsLaunchsBudgets() throws {
        var measurement = try ReportFixtures.measure().measurements[0]
        measurement.launch = "version"
        let main = try XCTUnwrap(measurement.milestones[.main]?.medianMs)
        var config = PremainConfig()
        config.launches = [DeclaredLaunch(name: "version", run: ["true", "--version"], budgets: [.main: main / 2])]
        let input = RuleInput(objects: [], closures: [], launches: [measurement])
        XCTAssertEqual(BudgetChecker.check(input, config).map(\.rule), ["budget_launch_median"])
        config.launches[0].budgets = [.main: main * 2]
        XCTAssertEqual(BudgetChecker.check(input, config), [])
    }
}
