import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The project's samples and the rule samples (`scripts/build-samples`, then
/// `scripts/build-rule-samples`), built once per test run into a temporary folder. A missing
/// compiler fails loudly instead of skipping.
///
/// `swift test` runs this target twice, XCTest and then swift-testing, each in a child process
/// of one `swift-test`; both use the folder named after that parent (see `SharedBuild`), so the
/// samples are compiled once per run, not once per test library.
enum Samples {
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.path
            }
        }
        return FileManager.default.currentDirectoryPath
    }()

    /// The folder the samples were built into; the build runs on first use.
    static let directory: Result<String, SampleBuildError> = {
        let folder = SharedBuild.folder("premain-core-samples", sources: [
            repositoryRoot + "/samples", repositoryRoot + "/scripts/build-samples", repositoryRoot + "/scripts/build-rule-samples",
        ])
        return SharedBuild.once(in: folder) {
            for script in ["build-samples", "build-rule-samples"] {
                let result: ShellResult
                do {
                    result = try Shell.run(["bash", repositoryRoot + "/scripts/" + script, folder])
                } catch {
                    return "cannot run scripts/\(script): \(error)"
                }
                guard result.status == 0 else { return "scripts/\(script) failed (\(result.status)):\n\(result.stderr)\(result.stdout)" }
            }
            return nil
        }.map { .failure(SampleBuildError(message: $0)) } ?? .success(folder)
    }()

    /// The path of a built sample file, e.g. `path("cxx-static-init/libinit.so")`.
    static func path(_ relative: String) throws -> String {
        try directory.get() + "/" + relative
    }
}

struct SampleBuildError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
