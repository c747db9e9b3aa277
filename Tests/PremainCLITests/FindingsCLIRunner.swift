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

    static let binary: String = {
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var folder = runner.deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("premain").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return "premain"
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], in folder: String? = nil, executable: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? binary)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let base = NSTemporaryDirectory() + "premain-findings-cli-\(UUID().uuidString)"
        FileManager.default.createFile(atPath: base + ".out", contents: nil)
        FileManager.default.createFile(atPath: base + ".err", contents: nil)
        defer {
            try? FileManager.default.removeItem(atPath: base + ".out")
            try? FileManager.default.removeItem(atPath: base + ".err")
        }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")
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
