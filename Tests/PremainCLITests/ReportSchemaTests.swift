import Foundation
import PremainTestSupport
import Testing

/// The published JSON Schemas (docs/schemas): each is a valid JSON Schema 2020-12 for
/// python3-jsonschema, every kind of report premain writes matches its schema for both
/// validators, and a report that breaks the contract is caught. (`CLI.run` validates every
/// JSON report of every other CLI test with the same schemas.)
@Suite(.serialized) struct ReportSchemaTests {
    static func premain(_ arguments: [String]) throws -> CLI.Result {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        return try CLI.run(arguments)
    }

    /// python3-jsonschema's verdict on `files` (JSON reports) against the schema `name`, with
    /// the other schema files registered for `$ref`: one line per violation, `[]` when valid.
    static func pythonViolations(schema name: String, files: [String]) throws -> [String] {
        let script = """
            import json, sys, os, glob
            try:
                import jsonschema
            except ImportError:
                print("python3-jsonschema is missing: run scripts/setup", file=sys.stderr); sys.exit(2)
            folder, name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
            schemas = {os.path.basename(p): json.load(open(p)) for p in glob.glob(folder + "/*.schema.json")}
            for schema in schemas.values():
                jsonschema.Draft202012Validator.check_schema(schema)
            root = schemas[name + ".schema.json"]
            try:
                from referencing import Registry, Resource
                registry = Registry().with_resources([(key, Resource.from_contents(value)) for key, value in schemas.items()])
                validator = jsonschema.Draft202012Validator(root, registry=registry)
            except ImportError:
                resolver = jsonschema.RefResolver(base_uri=name + ".schema.json", referrer=root, store=schemas)
                validator = jsonschema.Draft202012Validator(root, resolver=resolver)
            for path in files:
                for error in validator.iter_errors(json.load(open(path))):
                    print(path + ": " + "/".join(str(p) for p in error.path) + ": " + error.message[:200])
            """
        let result = try Shell.run(["python3", "-c", script, ReportSchemas.folder, name] + files)
        guard result.status == 0 else {
            throw ReportSchemas.SchemaError(
                description: "the schema validator failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func everyReportSchemaIsPublishedAndDocumented() throws {
        #expect(
            ReportSchemas.names == [
                "audit", "check", "compare", "compare-matrix", "config", "diff", "field", "field-compare", "history",
                "measure", "pr", "rules", "trace",
            ])
        let guide = try String(contentsOfFile: Repository.root + "/docs/json.md", encoding: .utf8)
        // config.schema.json describes premain.json, not a report: docs/config.md links it.
        let configGuide = try String(contentsOfFile: Repository.root + "/docs/config.md", encoding: .utf8)
        #expect(configGuide.contains("schemas/config.schema.json"))
        for name in ReportSchemas.names where name != "config" {
            #expect(guide.contains("schemas/\(name).schema.json"), "docs/json.md does not link \(name).schema.json")
        }
        // Valid schemas for python3-jsonschema (check_schema runs on every file).
        #expect(try Self.pythonViolations(schema: "rules", files: []) == [])
    }

    /// One real report of every kind, from the samples, checked by python3-jsonschema as well as
    /// by the validator `CLI.run` uses, so the two agree on what the schemas say.
    @Test func realReportsOfEveryKindMatchTheirSchemasForBothValidators() throws {
        let folder = try TemporaryFolders.make("schemas")
        let ctor = try Samples.path("cxx-static-init/cxx-static-init")
        let hello = try Samples.path("c-hello/c-hello")
        let base = (try Samples.path("pairs/work-base/app") as NSString).deletingLastPathComponent
        let head = (try Samples.path("pairs/work-head/app") as NSString).deletingLastPathComponent
        let runs: [(schema: String, file: String, arguments: [String])] = [
            ("audit", "audit.json", ["audit", ctor]),
            ("audit", "audit2.json", ["audit", ctor, hello, "/nonexistent"]),
            ("measure", "measure.json", ["measure", "--runs", "3", "--warmup", "0", "--", ctor]),
            ("check", "check.json", ["check", "--no-config", ctor, folder + "/measure.json"]),
            ("diff", "diff.json", ["diff", "--no-config", base, head]),
            (
                "compare", "compare.json",
                [
                    "compare", "--no-config", "--min-runs", "8", "--max-runs", "8", "--no-explain",
                    base + "/app", head + "/app",
                ]
            ),
        ]
        for run in runs {
            // CLI.run throws when the Swift validator finds a violation.
            let arguments =
                [run.arguments[0], "--format", "json", "--output", folder + "/" + run.file] + run.arguments.dropFirst()
            let result = try Self.premain(arguments)
            #expect([0, 1, 2, 3, 5].contains(result.status), "\(arguments): \(result.stderr)")
            #expect(
                try Self.pythonViolations(schema: run.schema, files: [folder + "/" + run.file]) == [], "\(run.schema)")
        }
        let rules = try Self.premain(["rules", "--no-config", "--format", "json"])
        try rules.stdout.write(toFile: folder + "/rules.json", atomically: true, encoding: .utf8)
        #expect(try Self.pythonViolations(schema: "rules", files: [folder + "/rules.json"]) == [])
        let pr = try Self.premain(["pr", "--no-config", "--base", base, "--head", head, "--json", folder + "/pr.json"])
        #expect(pr.status == 5, "\(pr.stderr)")
        #expect(try Self.pythonViolations(schema: "pr", files: [folder + "/pr.json"]) == [])
        #if arch(x86_64)
            let trace = try Self.premain([
                "trace", "--runs", "1", "--warmup", "0", "--format", "json", "--output", folder + "/trace.json", "--",
                ctor,
            ])
            #expect(trace.status == 0, "\(trace.stderr)")
            #expect(try Self.pythonViolations(schema: "trace", files: [folder + "/trace.json"]) == [])
        #endif
        let database = folder + "/history.sqlite"
        #expect(
            try Self.premain(["history", "add", folder + "/measure.json", "--commit", "c1", "--db", database]).status
                == 0)
        #expect(
            try Self.premain([
                "history", "show", "--format", "json", "--output", folder + "/history.json", "--db", database,
            ]).status == 0)
        #expect(try Self.pythonViolations(schema: "history", files: [folder + "/history.json"]) == [])
    }

    /// A report that breaks the contract: both validators say where.
    @Test func aBrokenReportIsCaughtByBothValidators() throws {
        let folder = try TemporaryFolders.make("schemas-broken")
        let result = try Self.premain(["audit", "--format", "json", try Samples.path("c-hello/c-hello")])
        var object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        object["schemaVersion"] = 7
        var binaries = try #require(object["binaries"] as? [[String: Any]])
        binaries[0]["needed"] = "libc.so.6"
        object["binaries"] = binaries
        let broken = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        let swift = try ReportSchemas.violations(broken, schema: "audit")
        #expect(swift.contains { $0.hasPrefix("$.schemaVersion:") }, "\(swift)")
        #expect(swift.contains { $0.hasPrefix("$.binaries[0].needed: expected array") }, "\(swift)")
        try broken.write(toFile: folder + "/broken.json", atomically: true, encoding: .utf8)
        let python = try Self.pythonViolations(schema: "audit", files: [folder + "/broken.json"])
        #expect(python.count == 2, "\(python)")
        #expect(try ReportSchemas.violations("{", schema: "audit").count == 1)
    }
}
