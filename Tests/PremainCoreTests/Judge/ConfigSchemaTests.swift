import Foundation
import PremainTestSupport
import Testing

@testable import PremainJudge
@testable import PremainModel

/// Issue 35 item 1: docs/schemas/config.schema.json describes premain.json as ConfigParser
/// reads it: the same keys at every level (so neither can gain one the other lacks), the
/// repository's own premain.json and every example in docs/config.md valid, and a mistake the
/// parser refuses refused by the schema too (python3-jsonschema).
struct ConfigSchemaTests {
    static let path = Repository.root + "/docs/schemas/config.schema.json"

    static func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func keys(_ object: [String: Any]?, _ path: String...) -> [String] {
        var current = object
        for key in path { current = (current?["properties"] as? [String: Any])?[key] as? [String: Any] }
        return ((current?["properties"] as? [String: Any])?.keys).map { $0.sorted() } ?? []
    }

    @Test func theSchemaHasTheParsersKeysAtEveryLevel() throws {
        let schema = try Self.schema()
        #expect(Self.keys(schema) == ConfigParser.topKeys.sorted())
        #expect(Self.keys(schema, "budgets") == ConfigParser.budgetKeys.sorted())
        #expect(Self.keys(schema, "compare") == ConfigParser.compareKeys.sorted())
        #expect(Self.keys(schema, "diff") == ConfigParser.diffKeys.sorted())
        #expect(
            Self.keys(schema, "budgets", "maxMsPerFunctionKind")
                == TracedFunctionKind.allCases.filter { $0 != .named }.map(\.rawValue).sorted())
        let properties = schema["properties"] as? [String: Any]
        let allow = ((properties?["allowlist"] as? [String: Any])?["items"] as? [String: Any])
        #expect(((allow?["properties"] as? [String: Any])?.keys).map { $0.sorted() } == ConfigParser.allowKeys.sorted())
        let launch = ((properties?["launches"] as? [String: Any])?["items"] as? [String: Any])
        #expect(
            ((launch?["properties"] as? [String: Any])?.keys).map { $0.sorted() } == LaunchesParser.launchKeys.sorted())
        #expect(
            Self.keys(launch, "budgets", "maxMedianMs") == Milestone.allCases.map(\.rawValue).sorted())
    }

    @Test func theRepositorysConfigAndTheDocsExamplesAreValidAndAMistakeIsNot() throws {
        let folder = try TemporaryFolders.make("config-schema")
        var files = [Repository.root + "/premain.json"]
        let guide = try String(contentsOfFile: Repository.root + "/docs/config.md", encoding: .utf8)
        for (index, block) in guide.components(separatedBy: "```json\n").dropFirst().enumerated() {
            let text = block.components(separatedBy: "```").first ?? ""
            let file = folder + "/example-\(index).json"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            _ = try ConfigParser.parse(text)  // premain reads it
            files.append(file)
        }
        #expect(files.count >= 3, "docs/config.md has JSON examples")
        #expect(try Self.violations(files) == [])
        let mistake = folder + "/mistake.json"
        let text = #"{"launches": [{"name": "version", "run": "app --version"}]}"#
        try text.write(toFile: mistake, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { _ = try ConfigParser.parse(text) }
        #expect(try Self.violations([mistake]).count == 1)
    }

    /// One line per violation, by python3-jsonschema.
    static func violations(_ files: [String]) throws -> [String] {
        let script = """
            import json, sys
            import jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            for path in sys.argv[2:]:
                for error in validator.iter_errors(json.load(open(path))):
                    print(path + ": " + "/".join(str(p) for p in error.path) + ": " + error.message[:200])
            """
        let result = try Shell.run(["python3", "-c", script, path] + files)
        guard result.status == 0 else { throw ConfigSchemaError(message: result.stderr) }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    struct ConfigSchemaError: Error {
        var message: String
    }
}
