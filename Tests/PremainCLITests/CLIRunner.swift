import Foundation

/// Runs the built `premain` binary, as a user would, and builds the samples the CLI tests use
/// once per test run.
enum CLI {
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

    /// The folder holding Package.swift, found upwards from this source file.
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url.path }
        }
        return FileManager.default.currentDirectoryPath
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct BuildError: Error, CustomStringConvertible { var description: String }

    /// The samples and rule samples (scripts/build-samples, scripts/build-rule-samples), built
    /// into a temporary folder on first use, once per `swift test` run: its XCTest and its
    /// swift-testing process share the folder (see `SharedBuild`). A missing compiler fails the
    /// tests that need them.
    static let samples: Swift.Result<String, BuildError> = {
        let folder = SharedBuild.folder("premain-cli-samples", sources: [
            repositoryRoot + "/samples", repositoryRoot + "/scripts/build-samples", repositoryRoot + "/scripts/build-rule-samples",
        ])
        return SharedBuild.once(in: folder) {
            for script in ["build-samples", "build-rule-samples"] {
                guard let result = try? run([repositoryRoot + "/scripts/" + script, folder], executable: "/bin/bash") else {
                    return "cannot run scripts/\(script)"
                }
                guard result.status == 0 else { return "scripts/\(script) failed: \(result.stderr)" }
            }
            return nil
        }.map { .failure(BuildError(description: $0)) } ?? .success(folder)
    }()

    /// The path of a built sample file, e.g. `sample("cxx-static-init/libinit.so")`.
    static func sample(_ relative: String) throws -> String { try samples.get() + "/" + relative }

    /// Runs premain (or `executable`) with `arguments` in `folder`, with extra `environment`.
    static func run(_ arguments: [String], environment: [String: String] = [:], in folder: String? = nil,
                    executable: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable ?? binary)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("premain-cli-\(UUID().uuidString).out")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("premain-cli-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
