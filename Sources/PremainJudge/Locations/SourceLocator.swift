import PremainModel
import PremainSystem

/// Points findings at the sources of a checkout (the source root): a finding's DWARF line when
/// its file is in the checkout (also when the binary was built in another checkout of the same
/// repository, such as a CI worktree: the path is matched by its tail), else the line of the
/// build file at the root that names the object. Findings about system and toolchain objects
/// are left as they are. Reads the build file once and tests whether files exist; never prints.
public struct SourceLocator: Sendable {
    public var scope: SourceScope
    /// The build file at the root; `nil` when the root has none of `BuildFile.names`.
    public var buildFile: BuildFile?

    public init(scope: SourceScope, buildFile: BuildFile?) {
        self.scope = scope
        self.buildFile = buildFile
    }

    /// A locator for `scope`, with the build file found at its root.
    public init(scope: SourceScope) {
        self.init(scope: scope, buildFile: BuildFile.find(in: scope.root))
    }

    /// The top of the git checkout holding `directory` (the nearest folder upwards with a
    /// `.git` folder or file), else `directory` itself.
    public static func sourceRoot(from directory: String) -> String {
        var folder = SourceScope.normalize(directory, in: "/")
        while true {
            if LocalFiles.kind((folder == "/" ? "" : folder) + "/.git") != .missing { return folder }
            guard folder != "/" else { return SourceScope.normalize(directory, in: "/") }
            folder = LocalFiles.directory(of: folder)
        }
    }

    /// Every finding with its location resolved as `locate(_:)` says.
    public func locate(_ findings: [Finding]) -> [Finding] {
        findings.map(locate)
    }

    /// The findings of a diff, each list located.
    public func locate(_ findings: FindingsDelta) -> FindingsDelta {
        FindingsDelta(new: locate(findings.new), fixed: locate(findings.fixed), unchanged: locate(findings.unchanged))
    }

    /// `finding` with `location` set to an absolute path inside the root when one is known:
    /// its own DWARF location (as is, or moved into this checkout), else the build file's line
    /// naming the library (dependency findings) or the object. Unchanged when the finding is
    /// about a system object, or when neither is found.
    public func locate(_ finding: Finding) -> Finding {
        guard !scope.isSystem(path: finding.subject.path) else { return finding }
        var located = finding
        if let location = finding.location, let file = fileInCheckout(location.file) {
            located.location = SourceLocation(file: file, line: location.line)
        } else if let buildFile {
            var names: [String] = []
            if let library = finding.subject.symbol, Self.isLibraryName(library) {
                names += BuildFile.targetNames(of: library)
            }
            names += BuildFile.targetNames(of: finding.subject.object)
            located.location = SourceLocation(file: buildFile.path, line: buildFile.line(naming: names))
        }
        return located
    }

    /// `path` (from DWARF) as an absolute path of a file inside the root: as is when it is an
    /// absolute path inside, else the longest tail of it that names an existing file under the
    /// root (a relative path, as `-fdebug-prefix-map` leaves them, or a build in another
    /// checkout); `nil` for files under system folders or not found.
    func fileInCheckout(_ path: String) -> String? {
        if path.hasPrefix("/") {
            let absolute = SourceScope.normalize(path, in: "/")
            if scope.relativeToRoot(absolute) != nil { return absolute }
            if scope.isSystem(path: absolute) { return nil }
        }
        let parts = path.split(separator: "/").filter { $0 != "." && $0 != ".." }
        for start in parts.indices {
            let candidate = SourceScope.normalize(parts[start...].joined(separator: "/"), in: scope.root)
            if LocalFiles.kind(candidate) == .file { return candidate }
        }
        return nil
    }

    /// `true` for a `DT_NEEDED`-like name: `libfoo.so`, `libfoo.so.1`, a path to a shared object.
    static func isLibraryName(_ name: String) -> Bool {
        let file = ObjectName.fileName(name)
        return file.hasSuffix(".so") || file.contains(".so.") || file.hasSuffix(".a")
    }
}
