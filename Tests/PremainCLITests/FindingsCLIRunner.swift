import Foundation

/// Runs the built `premain` binary for the rules/check/diff tests, and builds the samples
/// they use once per test run.
enum FindingsCLI {
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        }
        return FileManager.default.currentDirectoryPath
    }()

    static var binary: String { CLI.binary }

    typealias Result = CLI.Result

    static func run(_ arguments: [String], in folder: String? = nil, executable: String? = nil) throws -> Result {
        try CLI.run(arguments, in: folder, executable: executable)
    }

    struct BuildError: Error, CustomStringConvertible { var description: String }

    /// The samples and rule samples, built into a temporary folder on first use.
    static let samples: Result2 = {
        let folder = NSTemporaryDirectory() + "premain-findings-cli-samples-\(getpid())"
        for script in ["build-samples", "build-rule-samples"] {
            guard let result = try? run([repositoryRoot + "/scripts/" + script, folder], executable: "/bin/bash") else {
                return .failure(BuildError(description: "cannot run scripts/\(script)"))
            }
            guard result.status == 0 else { return .failure(BuildError(description: "scripts/\(script) failed: \(result.stderr)")) }
        }
        return .success(folder)
    }()

    typealias Result2 = Swift.Result<String, BuildError>

    static func sample(_ relative: String) throws -> String { try samples.get() + "/" + relative }
}
