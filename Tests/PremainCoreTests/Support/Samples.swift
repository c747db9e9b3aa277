import Foundation

/// The project's samples, built once per test run into a temporary folder by
/// `scripts/build-samples`. A missing compiler fails loudly instead of skipping.
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
        let folder = NSTemporaryDirectory() + "premain-samples-\(getpid())"
        do {
            let result = try Shell.run(["bash", repositoryRoot + "/scripts/build-samples", folder])
            guard result.status == 0 else {
                return .failure(SampleBuildError(message: "scripts/build-samples failed (\(result.status)):\n\(result.stderr)\(result.stdout)"))
            }
            return .success(folder)
        } catch {
            return .failure(SampleBuildError(message: "cannot run scripts/build-samples: \(error)"))
        }
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
