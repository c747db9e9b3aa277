import Foundation

/// The project's samples and the rule samples (`scripts/build-samples`, then
/// `scripts/build-rule-samples`), built once per test run into a temporary folder. A missing
/// compiler fails loudly instead of skipping.
///
/// `swift test` runs the tests twice, XCTest and then swift-testing, each in a child process
/// of one `swift-test`; both use the folder named after that parent (see `SharedBuild`), so the
/// samples are compiled once per run, for every test target, not once per test library.
public enum Samples {
    /// The folder the samples were built into; the build runs on first use.
    public static let directory: Result<String, SampleBuildError> = {
        let root = Repository.root
        let folder = SharedBuild.folder(
            "premain-samples",
            sources: [
                root + "/samples", root + "/scripts/build-samples", root + "/scripts/build-rule-samples",
            ])
        return SharedBuild.once(in: folder) {
            for script in ["build-samples", "build-rule-samples"] {
                let result: ShellResult
                do {
                    result = try Shell.run(["bash", root + "/scripts/" + script, folder])
                } catch {
                    return "cannot run scripts/\(script): \(error)"
                }
                guard result.status == 0 else {
                    return "scripts/\(script) failed (\(result.status)):\n\(result.stderr)\(result.stdout)"
                }
            }
            return nil
        }.map { .failure(SampleBuildError(message: $0)) } ?? .success(folder)
    }()

    /// The path of a built sample file, e.g. `path("cxx-static-init/libinit.so")`; throws
    /// the build's failure.
    public static func path(_ relative: String) throws -> String {
        try directory.get() + "/" + relative
    }
}

/// A build the tests need that failed (samples, a release binary), with what it said.
public struct SampleBuildError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}

/// The checkout the tests run from.
public enum Repository {
    /// The folder holding Package.swift, found upwards from this source file; the current
    /// folder when there is none.
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }()
}
