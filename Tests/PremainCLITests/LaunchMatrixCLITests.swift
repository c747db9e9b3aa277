import Foundation
import PremainTestSupport
import Testing

/// Issue 35: `premain measure` without a command measures the launches premain.json declares,
/// one row per launch and temperature, named in every format; `--launch` picks some; a mistake
/// in `launches` is a usage error naming its key. Real launches of two sample programs; no time
/// is asserted.
@Suite(.serialized)
struct LaunchMatrixCLITests {
    static func project(_ launches: String) throws -> String {
        let folder = try TemporaryFolders.make("launch-matrix")
        try #"{"launches": \#(launches)}"#.write(toFile: folder + "/premain.json", atomically: true, encoding: .utf8)
        return folder
    }

    @Test func measureRunsEachDeclaredLaunchAsOneRowNamedInEveryFormat() throws {
        let hello = try Samples.path("c-hello/c-hello")
        let notify = try Samples.path("field-mark/field-notify")
        let folder = try Self.project(
            #"""
            [{"name": "hello", "run": ["\#(hello)"], "until": "first-output"},
             {"name": "served", "run": ["\#(notify)", "0"], "until": "exit", "env": {"PREMAIN_MATRIX_TEST": "1"}}]
            """#)
        let json = try CLI.run(["measure", "--runs", "2", "--warmup", "0", "--format", "json"], in: folder)
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let rows = try #require(document["measurements"] as? [[String: Any]])
        #expect(rows.map { $0["launch"] as? String } == ["hello", "served"])
        #expect(rows.map { ($0["command"] as? [String])?.first } == [hello, notify])
        #expect(rows.allSatisfy { $0["cold"] as? Bool == false })
        let saved = folder + "/../matrix.json"
        try json.stdout.write(toFile: saved, atomically: true, encoding: .utf8)
        #expect(try ReportSchemaTests.pythonViolations(schema: "measure", files: [saved]) == [])

        let text = try CLI.run(["measure", "--runs", "2", "--warmup", "0", "--launch", "served"], in: folder)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("premain measure: 1 row of 1 launch (launch × temperature)\n"), "\(text.stdout)")
        #expect(text.stdout.contains("premain measure: served: \(notify) 0\n"), "\(text.stdout)")
        #expect(!text.stdout.contains("hello"))
        let markdown = try CLI.run(["measure", "--runs", "2", "--warmup", "0", "--format", "markdown"], in: folder)
        #expect(markdown.stdout.hasPrefix("## premain measure: 2 rows of 2 launches"), "\(markdown.stdout)")
        #expect(markdown.stdout.contains("| hello | ok |") && markdown.stdout.contains("| served | ok |"))

        let unknown = try CLI.run(["measure", "--launch", "nope"], in: folder)
        #expect(unknown.status == 64, "\(unknown.stderr)")
        #expect(unknown.stderr.hasPrefix("Error: no launch 'nope'; premain.json declares hello, served"))
        let both = try CLI.run(["measure", "--launch", "hello", "--", hello], in: folder)
        #expect(both.status == 64, "\(both.stderr)")
        let none = try CLI.run(["measure", "--no-config"], in: folder)
        #expect(none.status == 64 && none.stderr.contains("premain.json declares no launches"), "\(none.stderr)")
    }

    /// `trace --launch NAME` follows one declared launch: its program, environment and end;
    /// `measure` holds each row to its launch's budgets (exit 1, the row named).
    @Test func traceFollowsOneDeclaredLaunchAndMeasureChecksItsBudgets() throws {
        let hello = try Samples.path("c-hello/c-hello")
        let folder = try Self.project(
            #"""
            [{"name": "hello", "run": ["\#(hello)"], "until": "main", "budgets": {"maxMedianMs": {"main": 0.000001}}},
             {"name": "ready", "run": ["\#(hello)"], "until": {"ready": "hello"}}]
            """#)
        let json = try CLI.run(["trace", "--launch", "hello", "--runs", "2", "--format", "json"], in: folder)
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let measurement = try #require((document["measurements"] as? [[String: Any]])?.first)
        #expect((measurement["command"] as? [String]) == [hello])
        #expect("\(measurement["until"] ?? "")" == "main", "\(measurement.keys)")
        for (arguments, message) in [
            (["--launch", "ready"], "launch 'ready' ends at a ready line, which trace does not watch"),
            (["--launch", "nope"], "no launch 'nope' in premain.json; it declares 'hello', 'ready'"),
            (["--launch", "hello", "--launch", "ready"], "trace follows one launch at a time"),
            (["--launch", "hello", "--", hello], "--launch picks premain.json's launches; drop the command"),
        ] {
            let refused = try CLI.run(["trace"] + arguments, in: folder)
            #expect(refused.status == 64 && refused.stderr.contains(message), "\(refused.stderr)")
        }
        let measured = try CLI.run(["measure", "--runs", "2", "--warmup", "0", "--launch", "hello"], in: folder)
        #expect(measured.status == 1, "\(measured.stderr)")
        #expect(measured.stderr.contains("launch hello reaches main after "), "\(measured.stderr)")
    }

    @Test func aConfigMistakeIsAUsageErrorNamingItsKey() throws {
        let hello = try Samples.path("c-hello/c-hello")
        let wrong = try Self.project(#"[{"name": "a", "run": ["\#(hello)"], "temperature": ["hot"]}]"#)
        let refused = try CLI.run(["measure"], in: wrong)
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.stderr.contains("launches[0].temperature"), "\(refused.stderr)")
        let twice = try Self.project(#"[{"name": "a", "run": ["\#(hello)"]}, {"name": "a", "run": ["\#(hello)"]}]"#)
        let duplicate = try CLI.run(["measure"], in: twice)
        #expect(duplicate.status == 64 && duplicate.stderr.contains("launches[1].name"), "\(duplicate.stderr)")
    }
}
