import Foundation

/// Runs the built `premain` binary, as a user would.
public enum CLI {
    /// The `premain` executable beside (or above) the test bundle; `"premain"` when there is none.
    public static let binary: String = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("premain").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return "premain"
    }()

    public typealias Result = ShellResult

    /// Runs premain (or `executable`) with `arguments` in `folder`, with extra `environment`.
    /// Every JSON report premain writes (on stdout, to `--output` or to `pr --json`) is checked
    /// against its schema in docs/schemas; a report that does not match throws
    /// `ReportSchemaViolation`, so no test passes on a report the schemas do not describe.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], in folder: String? = nil,
        executable: String? = nil
    ) throws -> Result {
        let result = try Shell.run(arguments, environment: environment, in: folder, executable: executable ?? binary)
        if executable == nil { try checkReports(of: arguments, result: result, in: folder) }
        return result
    }

    /// A report premain wrote that its published schema does not describe.
    public struct ReportSchemaViolation: Error, CustomStringConvertible {
        public var report: String
        public var schema: String
        public var problems: [String]
        public var description: String {
            "\(report) does not match docs/schemas/\(schema).schema.json:\n  "
                + problems.prefix(20).joined(separator: "\n  ")
        }
    }

    /// The JSON reports of one run: each with where it went and its text. A run that failed to
    /// write (exit 70) or was refused (exit 64) has none.
    static func checkReports(of arguments: [String], result: Result, in folder: String?) throws {
        guard result.status != 64, result.status != 70, let schema = ReportSchemas.name(forCommand: arguments) else {
            return
        }
        let options = arguments.prefix { $0 != "--" }
        func value(_ names: String...) -> String? {
            for (index, word) in options.enumerated() {
                for name in names {
                    if word == name, index + 1 < options.count { return options[options.startIndex + index + 1] }
                    if word.hasPrefix(name + "=") { return String(word.dropFirst(name.count + 1)) }
                }
            }
            return nil
        }
        var reports: [(String, String)] = []
        func file(_ path: String) {
            let full = path.hasPrefix("/") ? path : (folder ?? FileManager.default.currentDirectoryPath) + "/" + path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isFolder), !isFolder.boolValue,
                full.hasPrefix("/dev/") == false,
                let data = FileManager.default.contents(atPath: full), let text = String(data: data, encoding: .utf8)
            else { return }
            reports.append((path, text))
        }
        if value("--format", "-f") == "json" {
            if let output = value("--output", "-o"), output != "-" {
                file(output)
            } else if !result.stdout.isEmpty {
                reports.append(("stdout", result.stdout))
            }
        }
        if schema == "pr", let json = value("--json") {
            if json == "-" { reports.append(("stdout", result.stdout)) } else { file(json) }
        }
        for (place, text) in reports where !text.isEmpty {
            let problems = try ReportSchemas.violations(text, schema: schema)
            if !problems.isEmpty {
                throw ReportSchemaViolation(
                    report: "premain \(arguments.prefix(2).joined(separator: " ")) → \(place)",
                    schema: schema, problems: problems)
            }
        }
    }
}
