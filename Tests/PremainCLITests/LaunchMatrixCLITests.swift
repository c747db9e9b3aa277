import Foundation
import PremainTestSupport
import Testing

/// Issue 35: `premain measure` without a command measures the launches premain.json declares,
/// one row per launch and temperature, named in every format; `--launch` picks some; a
/// launch's budget gates (exit 1). Real launches of two sample programs; no time is asserted
/// (the budget of 0.001 ms is over any real median).
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
        #expect(text.stdout.hasPrefix("premain measure: launch 'served' (warm): \(notify) 0\n"), "\(text.stdout)")
        #expect(!text.stdout.contains("launch 'hello'"))
        let markdown = try CLI.run(["measure", "--runs", "2", "--warmup", "0", "--format", "markdown"], in: folder)
        #expect(markdown.stdout.contains("## premain measure: launch `hello` (warm): "), "\(markdown.stdout)")

        let unknown = try CLI.run(["measure", "--launch", "nope"], in: folder)
        #expect(
            unknown.status == 64
                && unknown.stderr.hasPrefix("Error: no launch 'nope' in premain.json; it declares hello, served"))
        let both = try CLI.run(["measure", "--launch", "hello", "--", hello], in: folder)
        #expect(both.status == 64, "\(both.stderr)")
        let none = try CLI.run(["measure", "--no-config"], in: folder)
        #expect(none.status == 64 && none.stderr.contains("declare launches in premain.json"), "\(none.stderr)")
    }

    @Test func aLaunchOverItsBudgetExitsOneAndAConfigMistakeIsAUsageError() throws {
        let hello = try Samples.path("c-hello/c-hello")
        let folder = try Self.project(
            #"[{"name": "tight", "run": ["\#(hello)"], "until": "exit", "budgets": {"maxMedianMsToExit": 0.001}}]"#)
        let over = try CLI.run(["measure", "--runs", "2", "--warmup", "0"], in: folder)
        #expect(over.status == 1, "\(over.stderr)")
        #expect(over.stderr.contains("Error: launch 'tight' (warm): median exit "), "\(over.stderr)")
        #expect(over.stderr.contains(" over its budget of 0.001 ms"))

        let wrong = try Self.project(#"[{"name": "a", "run": ["\#(hello)"], "temperature": "hot"}]"#)
        let refused = try CLI.run(["measure"], in: wrong)
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("launches[0].temperature: expected warm or cold, found 'hot'"), "\(refused.stderr)")
    }
}
