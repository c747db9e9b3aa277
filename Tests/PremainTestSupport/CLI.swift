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
    public static func run(_ arguments: [String], environment: [String: String] = [:], in folder: String? = nil,
                           executable: String? = nil) throws -> Result {
        try Shell.run(arguments, environment: environment, in: folder, executable: executable ?? binary)
    }
}
