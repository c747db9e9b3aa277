import LosslessText
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The program of one build that `compare` and `pr` launch: the file itself, or `--run NAME`
/// inside an artifact folder (never looked up in PATH).
public enum ArtifactProgram {
    public struct Problem: Error, Sendable {
        /// One line, names shown escaped (`TextSafety.display`).
        public var message: String
        /// A folder without --run, or --run with a file: the command line is wrong.
        public var isUsage: Bool
    }

    /// The absolute path of the program of `side`, or why there is none.
    public static func resolve(_ side: String, run: String?) -> Result<String, Problem> {
        switch LocalFiles.kind(side) {
        case .missing:
            return .failure(Problem(message: "\(TextSafety.display(side)): no such file or folder", isUsage: false))
        case .folder:
            guard let run, !run.isEmpty else {
                return .failure(
                    Problem(
                        message: "\(TextSafety.display(side)) is a folder; name the executable in it with --run NAME",
                        isUsage: true))
            }
            let path = (side.hasSuffix("/") ? side : side + "/") + run
            return executable(path, described: "\(TextSafety.display(run)) in \(TextSafety.display(side))")
        case .file:
            if run != nil {
                return .failure(
                    Problem(
                        message: "\(TextSafety.display(side)) is a file; --run NAME needs artifact folders",
                        isUsage: true))
            }
            return executable(side, described: TextSafety.display(side))
        case .other:
            return .failure(
                Problem(message: "\(TextSafety.display(side)): not a regular file or folder", isUsage: false))
        }
    }

    static func executable(_ path: String, described: String) -> Result<String, Problem> {
        guard LocalFiles.kind(path) == .file else {
            return .failure(Problem(message: "\(described): no such executable file", isUsage: false))
        }
        guard LocalFiles.isAccessible(path, X_OK) else {
            return .failure(Problem(message: "\(described): not executable (no x permission)", isUsage: false))
        }
        return .success(CommandResolver.absolute(path))
    }
}
