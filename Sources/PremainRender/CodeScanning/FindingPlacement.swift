import PremainModel

/// Where code scanning and workflow annotations show a finding: a file of the checkout with a
/// line when the finding has a location (an absolute path, as `SourceLocator` leaves it)
/// inside the source root, else the binary (relative to
/// the root, to the artifact folder named on the command line, or by file name) without a
/// line. Never an absolute path. Pure.
struct FindingPlacement: Equatable {
    /// The path, relative to the source root when `inSourceRoot`.
    var path: String
    /// `true` when `path` is relative to the source root (SARIF `uriBaseId` `SRCROOT`).
    var inSourceRoot: Bool
    /// 1-based; `nil` when the place is a binary or the line is unknown.
    var line: Int?

    init(_ finding: Finding, scope: SourceScope) {
        if let location = finding.location, location.line > 0, location.file.hasPrefix("/"),
            let relative = scope.relativeToRoot(location.file)
        {
            self.init(path: relative, inSourceRoot: true, line: location.line)
        } else if let path = finding.subject.path, let relative = scope.relativeToRoot(path) {
            self.init(path: relative, inSourceRoot: true, line: nil)
        } else if let path = finding.subject.path, let relative = scope.relativeToArtifacts(path) {
            self.init(path: relative, inSourceRoot: false, line: nil)
        } else {
            self.init(
                path: ObjectName.fileName(finding.subject.path ?? finding.subject.object), inSourceRoot: false,
                line: nil)
        }
    }

    init(path: String, inSourceRoot: Bool, line: Int?) {
        self.path = path
        self.inSourceRoot = inSourceRoot
        self.line = line
    }

    /// `true` for a finding code scanning and annotations show: not one about a system or
    /// toolchain object (those stay in the text and Markdown reports).
    static func isReported(_ finding: Finding, scope: SourceScope) -> Bool {
        !scope.isSystem(path: finding.subject.path)
    }
}
