import Foundation

/// Checks SARIF logs against the official OASIS SARIF 2.1.0 JSON schema
/// (Tests/Schemas/sarif-2.1.0.json, errata01) with Debian's python3-jsonschema, and against
/// what GitHub code scanning needs: relative URIs, a start line, stable fingerprints. Every test
/// that makes SARIF hands it here. A missing python3-jsonschema is a failure
/// (scripts/setup installs it), not a skip.
public enum SARIFValidation {
    /// The schema file in the repository.
    public static let schemaPath = Repository.root + "/Tests/Schemas/sarif-2.1.0.json"

    /// Why `text` is not a valid SARIF 2.1.0 log: one line per schema violation (`path: message`);
    /// `[]` when it is valid. Throws when the validator cannot run.
    public static func schemaViolations(_ text: String) throws -> [String] {
        let file = URL(fileURLWithPath: TemporaryFolders.root).appendingPathComponent(
            "premain-sarif-\(UUID().uuidString).json")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import json, sys
            try:
                import jsonschema
            except ImportError:
                print("python3-jsonschema is missing: run scripts/setup", file=sys.stderr)
                sys.exit(2)
            schema = json.load(open(sys.argv[1]))
            log = json.load(open(sys.argv[2]))
            validator = jsonschema.Draft4Validator(schema)
            for error in sorted(validator.iter_errors(log), key=lambda e: list(e.path)):
                print("/".join(str(p) for p in error.path) + ": " + error.message.replace("\\n", " "))
            """
        let result = try Shell.run(["python3", "-c", script, schemaPath, file.path])
        guard result.status == 0 else {
            throw ValidatorError(message: "the SARIF validator failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout.split(separator: "\n").map(String.init)
    }

    /// A validator that did not run.
    public struct ValidatorError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// One result as code scanning reads it.
    public struct Result: Equatable, Sendable {
        public var ruleId: String
        public var uri: String
        public var uriBaseId: String?
        public var startLine: Int?
        public var fingerprint: String?
        public var baselineState: String?
    }

    /// The results of the first run of `text`; throws when it is not a SARIF log.
    public static func results(_ text: String) throws -> [Result] {
        guard let log = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let runs = log["runs"] as? [[String: Any]], let run = runs.first,
            let results = run["results"] as? [[String: Any]]
        else {
            throw ValidatorError(message: "not a SARIF log with runs[0].results")
        }
        return results.map { result in
            let locations = result["locations"] as? [[String: Any]]
            let physical = locations?.first?["physicalLocation"] as? [String: Any]
            let artifact = physical?["artifactLocation"] as? [String: Any]
            let region = physical?["region"] as? [String: Any]
            return Result(
                ruleId: result["ruleId"] as? String ?? "", uri: artifact?["uri"] as? String ?? "",
                uriBaseId: artifact?["uriBaseId"] as? String, startLine: region?["startLine"] as? Int,
                fingerprint: (result["partialFingerprints"] as? [String: String])?.values.first,
                baselineState: result["baselineState"] as? String)
        }
    }

    /// Every `uri` value anywhere in the log that is absolute (a scheme such as `file:`, or a
    /// leading `/`): `[]` for a log code scanning can place in any checkout.
    public static func absoluteURIs(_ text: String) throws -> [String] {
        var found: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, inner) in object {
                    if key == "uri", let uri = inner as? String,
                        uri.hasPrefix("/") || uri.contains("://") || uri.lowercased().hasPrefix("file:")
                    {
                        found.append(uri)
                    }
                    walk(inner)
                }
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(try JSONSerialization.jsonObject(with: Data(text.utf8)))
        return found
    }
}
