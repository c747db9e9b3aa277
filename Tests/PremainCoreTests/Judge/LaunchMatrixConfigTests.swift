import PremainJudge
import PremainModel
import Testing

/// Issue 35: launches declared once in premain.json; every mistake names its key.
struct LaunchMatrixConfigTests {
    static func error(_ json: String) -> String {
        do {
            _ = try ConfigParser.parse(json)
            return "parsed"
        } catch {
            return error.description
        }
    }

    @Test func launchesAreReadInOrderWithTheirEndsTemperaturesAndBudgets() throws {
        let config = try ConfigParser.parse(
            #"""
            {"launches": [
              {"name": "version", "run": ["swiftformat", "--version"], "until": "first-output"},
              {"name": "format", "run": ["swiftformat", "--dryrun", "Big.swift"], "until": "exit",
               "temperature": ["warm", "cold"], "env": {"B": "2", "A": "1"}, "timeout": 10,
               "budgets": {"maxMedianMsToExit": 40}},
              {"name": "serve", "run": ["myd", "--port", "0"], "until": {"ready": "listening on"}},
              {"name": "lazy", "run": ["./app"], "until": {"function": "$s3App8registrySaSiGvau"}, "temperature": "cold"}
            ]}
            """#)
        #expect(config.launches.map(\.name) == ["version", "format", "serve", "lazy"])
        #expect(config.launches[0].end == .firstOutput && config.launches[0].temperatures == [.warm])
        #expect(config.launches[1].end == .exit && config.launches[1].temperatures == [.warm, .cold])
        #expect(config.launches[1].environment.map(\.name) == ["A", "B"])
        #expect(config.launches[1].timeoutSeconds == 10 && config.launches[1].maxMedianMs == ["exit": 40])
        #expect(config.launches[2].end == .ready("listening on") && config.launches[2].run == ["myd", "--port", "0"])
        #expect(
            config.launches[3].end == .function("$s3App8registrySaSiGvau") && config.launches[3].temperatures == [.cold]
        )
        #expect(try ConfigParser.parse("{}").launches.isEmpty)
    }

    @Test func aLaunchMistakeNamesItsKey() {
        let cases: [(String, String)] = [
            (#"{"launches": {}}"#, "launches: expected an array of {name, run, …}, found an object"),
            (#"{"launches": [{"name": "a", "run": ["x"], "untill": "main"}]}"#, "launches[0].untill"),
            (#"{"launches": [{"run": ["x"]}]}"#, "launches[0].name"),
            (
                #"{"launches": [{"name": "a", "run": ["x"]}, {"name": "a", "run": ["y"]}]}"#,
                "launches[1].name: 'a' is declared twice (launches[0])"
            ),
            (#"{"launches": [{"name": "a"}]}"#, "launches[0].run: missing; give the program and its arguments"),
            (#"{"launches": [{"name": "a", "run": []}]}"#, "launches[0].run: expected a non-empty array of strings"),
            (#"{"launches": [{"name": "a", "run": "app"}]}"#, "launches[0].run: expected a non-empty array of strings"),
            (#"{"launches": [{"name": "a", "run": ["app", 3]}]}"#, "launches[0].run[1]"),
            (#"{"launches": [{"name": "a", "run": [""]}]}"#, "launches[0].run[0]: the program is empty"),
            (#"{"launches": [{"name": "a", "run": ["x"], "until": "ready"}]}"#, "launches[0].until: expected main"),
            (
                #"{"launches": [{"name": "a", "run": ["x"], "temperature": ["warm", "hot"]}]}"#,
                "launches[0].temperature[1]: expected warm or cold, found 'hot'"
            ),
            (
                #"{"launches": [{"name": "a", "run": ["x"], "temperature": ["cold", "cold"]}]}"#,
                "launches[0].temperature[1]: 'cold' is given twice"
            ),
            (#"{"launches": [{"name": "a", "run": ["x"], "timeout": -1}]}"#, "launches[0].timeout"),
            (
                #"{"launches": [{"name": "a", "run": ["x"], "budgets": {"maxMedianMsToMian": 3}}]}"#,
                "launches[0].budgets.maxMedianMsToMian"
            ),
            (#"{"launches": [{"name": "a b", "run": ["x"]}]}"#, "launches[0].name: expected a name of letters"),
        ]
        for (json, expected) in cases {
            let message = Self.error(json)
            #expect(message.contains(expected), "\(json): \(message)")
            #expect(message.hasPrefix("premain.json: launches"), "\(json): \(message)")
        }
    }
}
