/// What belongs to the project being checked: its source root (the checkout) and the artifacts
/// named on the command line. Tells the project's objects from system and toolchain libraries,
/// and writes paths relative to the root, so that code-scanning results never hold a folder
/// of the machine that made them. Pure path arithmetic: nothing is read from disk.
public struct SourceScope: Sendable, Equatable {
    /// The checkout's top folder (`--source-root`), absolute, without a trailing slash.
    public var root: String
    /// The files and folders named on the command line, absolute.
    public var artifacts: [String]
    /// What relative paths (of inputs, findings) are relative to.
    public var workingDirectory: String

    /// Folders of the system's and the toolchains' objects. An object under one of them that
    /// is not itself an artifact was not built by the project.
    public static let systemDirectories = [
        "/lib", "/lib32", "/lib64", "/libx32", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/usr/libexec",
        "/usr/local/lib", "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/include", "/usr/local/include", "/opt/swift",
    ]

    /// `root` and `artifacts` are made absolute against `workingDirectory` and normalized.
    public init(root: String, artifacts: [String], workingDirectory: String) {
        let base = Self.normalize(workingDirectory, in: "/")
        self.workingDirectory = base
        self.root = Self.normalize(root, in: base)
        self.artifacts = artifacts.map { Self.normalize($0, in: base) }
    }

    /// `path` made absolute (against `workingDirectory`), without `.`, `..` or repeated slashes.
    public func absolute(_ path: String) -> String {
        Self.normalize(path, in: workingDirectory)
    }

    /// `path` relative to the source root; `nil` when it lies outside.
    public func relativeToRoot(_ path: String) -> String? {
        Self.relative(absolute(path), to: root)
    }

    /// `path` relative to the artifact (a folder named on the command line) that holds it, or
    /// its file name when it is an artifact itself; `nil` when it is in none.
    public func relativeToArtifacts(_ path: String) -> String? {
        let path = absolute(path)
        for artifact in artifacts {
            if path == artifact { return ObjectName.fileName(path) }
            if let relative = Self.relative(path, to: artifact) { return relative }
        }
        return nil
    }

    /// `true` for an object the project did not build: under a system or toolchain folder
    /// (a Swift toolchain's `usr/lib/swift` wherever it is installed) and neither an artifact
    /// nor inside one. An object known by name only (no path) is the project's.
    public func isSystem(path: String?) -> Bool {
        guard let given = path else { return false }
        let path = absolute(given)
        if artifacts.contains(where: { path == $0 || Self.relative(path, to: $0) != nil }) { return false }
        if path.contains("/usr/lib/swift/") || path.contains("/usr/lib/swift_static/") { return true }
        return Self.systemDirectories.contains { Self.relative(path, to: $0) != nil }
    }

    /// `path` below `folder` as a relative path; `nil` when it is not below it (or is it).
    static func relative(_ path: String, to folder: String) -> String? {
        if folder == "/" { return path == "/" ? nil : String(path.dropFirst()) }
        guard path.hasPrefix(folder + "/") else { return nil }
        let rest = String(path.dropFirst(folder.count + 1))
        return rest.isEmpty ? nil : rest
    }

    /// `path` absolute against `base` (itself absolute), lexically normalized.
    public static func normalize(_ path: String, in base: String) -> String {
        let joined = path.hasPrefix("/") ? path : base + "/" + path
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
