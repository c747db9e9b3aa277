import PremainJudge
import PremainModel
import PremainRender
import PremainSystem

/// `--source-root` of `check`, `diff` and `pr`: the checkout that SARIF and annotation paths are
/// relative to, and the artifacts named on the command line.
enum SourceRootOptions {
    static let sourceRoot = Option<String?>(
        "--source-root", value: "dir", kind: .path(.folder),
        help:
            "The checkout the sources are in: SARIF and \(OutputOptions.formatName) github paths are relative to it, and link-level findings point at its build file",
        defaultText: "the top of the git checkout holding the current folder, else the current folder")

    /// The scope of `artifacts` under `--source-root` (or the checkout of the current folder),
    /// and the locator that points findings into it. A `--source-root` that is not a folder is
    /// a usage error.
    /// `defaultRoot` replaces the checkout of the current folder when `--source-root` is not
    /// given (`pr --commits`: the head commit's worktree).
    static func locator(_ arguments: ParsedArguments, artifacts: [String], defaultRoot: String? = nil)
        throws(UsageError) -> SourceLocator
    {
        let current = ProcessEnvironment.currentDirectory() ?? "/"
        let root: String
        if let given = arguments[sourceRoot] {
            guard LocalFiles.kind(given) == .folder else {
                throw UsageError(message: "\(sourceRoot) '\(TextSafety.display(given))' is not a folder")
            }
            root = given
        } else {
            root = defaultRoot ?? SourceLocator.sourceRoot(from: current)
        }
        return SourceLocator(scope: SourceScope(root: root, artifacts: artifacts, workingDirectory: current))
    }
}
