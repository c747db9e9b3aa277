import XCTest

@testable import PremainJudge
@testable import PremainModel

/// premain.json's `launches`: what is read, and each mistake named by its key.
final class LaunchesConfigTests: XCTestCase {
    func error(_ launches: String) -> String {
        do {
            _ = try ConfigParser.parse(#"{"launches": "# + launches + "}")
            return "no error"
        } catch {
            return error.description
        }
    }

    func testReadsEveryKeyAndTheDefaults() throws {
        let config = try ConfigParser.parse(
            #"""
            {"launches": [
              {"name": "version", "run": ["swiftformat", "--version"], "until": "first-output"},
              {"name": "format", "run": ["bin/app", "-x"], "until": "exit", "temperature": ["warm", "cold"],
               "env": {"LANG": "C"}, "stdin": "in.txt", "cwd": "work", "timeout": 10,
               "budgets": {"maxMedianMs": {"main": 5, "exit": 40}}},
              {"name": "serve", "run": ["myd"], "until": {"ready": "listening on"}},
              {"name": "lazy", "run": ["myd"], "until": {"function": "setUp"}, "temperature": ["cold"]}
            ]}
            """#)
        XCTAssertEqual(config.launches.map(\.name), ["version", "format", "serve", "lazy"])
        let version = config.launches[0]
        XCTAssertEqual(version.until, .firstOutput)
        XCTAssertEqual(version.temperatures, [.warm])
        XCTAssertEqual(version.environment, [:])
        XCTAssertNil(version.timeoutSeconds)
        let format = config.launches[1]
        XCTAssertEqual(format.run, ["bin/app", "-x"])
        XCTAssertEqual(format.until, .exit)
        XCTAssertEqual(format.temperatures, [.warm, .cold])
        XCTAssertEqual(format.environment, ["LANG": "C"])
        XCTAssertEqual(format.stdin, "in.txt")
        XCTAssertEqual(format.workingDirectory, "work")
        XCTAssertEqual(format.timeoutSeconds, 10)
        XCTAssertEqual(format.budgets, [.main: 5, .exit: 40])
        XCTAssertEqual(config.launches[2].until, .ready("listening on"))
        XCTAssertEqual(config.launches[3].until, .function("setUp"))
        XCTAssertEqual(
            try config.launches.rows(named: []).map(\.label),
            ["version", "format", "format (cold)", "serve", "lazy (cold)"])
        XCTAssertEqual(try config.launches.rows(named: ["format"]).map(\.label), ["format", "format (cold)"])
        XCTAssertThrowsError(try config.launches.rows(named: ["nope"])) { error in
            XCTAssertEqual(
                (error as? UnknownLaunch)?.description,
                "no launch 'nope'; premain.json declares version, format, serve, lazy")
        }
    }

    func testAnUnknownKeyIsNamed() {
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"], "untill": "main"}]"#),
            "premain.json: launches[0].untill: unknown key; expected one of name, run, until, temperature, env, stdin, cwd, timeout, budgets"
        )
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"], "budgets": {"maxMedianMs": {"mian": 3}}}]"#),
            "premain.json: launches[0].budgets.maxMedianMs.mian: unknown key; expected one of loaderStart, loaderDone, programInitializers, main, firstOutput, ready, exit"
        )
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"], "until": {"redy": "x"}}]"#),
            "premain.json: launches[0].until.redy: unknown key; expected one of ready, function")
    }

    func testAWrongTypeIsNamed() {
        XCTAssertEqual(
            error(#"{"name": "a"}"#),
            "premain.json: launches: expected an array of {name, run, until, …}, found an object")
        XCTAssertEqual(
            error(#"[{"name": "a", "run": "x --version"}]"#),
            "premain.json: launches[0].run: expected an array: the program, then its arguments, found a string")
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x", 3]}]"#),
            "premain.json: launches[0].run[1]: expected a string, found a number")
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"], "temperature": "cold"}]"#),
            "premain.json: launches[0].temperature: expected a non-empty array of warm, cold, found a string")
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"], "temperature": ["hot"]}]"#),
            "premain.json: launches[0].temperature[0]: expected one of warm, cold, found 'hot'")
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"], "until": "ready"}]"#),
            "premain.json: launches[0].until: expected main, first-output, exit, {\"ready\": PATTERN} or {\"function\": NAME}, found 'ready'"
        )
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"], "timeout": 0}]"#),
            "premain.json: launches[0].timeout: expected a number from 0.001 to 86400, found 0")
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"], "env": {"A": 1}}]"#),
            "premain.json: launches[0].env.A: expected a string, found a number")
        XCTAssertTrue(
            error(#"[{"name": "a", "run": ["x"], "until": {"mark": "ready"}}]"#).hasPrefix(
                "premain.json: launches[0].until.mark: marks (premain_mark) are seen by the field recorder only"))
    }

    func testADuplicateNameIsNamed() {
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["x"]}, {"name": "b", "run": ["y"]}, {"name": "a", "run": ["z"]}]"#),
            "premain.json: launches[2].name: 'a' is the name of launches[0] too; give each launch its own")
        XCTAssertEqual(
            error(#"[{"name": "a b", "run": ["x"]}]"#),
            "premain.json: launches[0].name: expected letters, digits, '-', '_' or '.', found 'a b'")
        XCTAssertEqual(
            error(#"[{"run": ["x"]}]"#), "premain.json: launches[0].name: missing; expected a string")
    }

    func testAMissingProgramIsNamed() {
        XCTAssertEqual(
            error(#"[{"name": "a"}]"#),
            "premain.json: launches[0].run: missing; expected an array: the program, then its arguments")
        XCTAssertEqual(
            error(#"[{"name": "a", "run": []}]"#),
            "premain.json: launches[0].run: missing the program; give it first, then its arguments")
        XCTAssertEqual(
            error(#"[{"name": "a", "run": ["", "-x"]}]"#),
            "premain.json: launches[0].run[0]: missing the program; give it first, then its arguments")
    }

    func testEnvironmentReplacesInheritedVariables() {
        let launch = DeclaredLaunch(name: "a", run: ["x"], environment: ["LANG": "C", "NEW": "1"])
        XCTAssertEqual(
            launch.environment(over: ["PATH=/bin", "LANG=en_US.UTF-8", "HOME=/root"]),
            ["PATH=/bin", "HOME=/root", "LANG=C", "NEW=1"])
    }
}
