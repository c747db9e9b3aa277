/// The result of `premain audit`: one inventory per ELF file, and the files that could not be
/// audited. Codable; JSON `schemaVersion` 1.
public struct AuditReport: Codable, Sendable, Equatable {
    public var schemaVersion: Int
    public var tool: ToolInfo
    public var binaries: [BinaryInventory]
    /// Files that could not be read as ELF at all.
    public var errors: [FileError]
    /// Largest offenders when several files or a folder were audited; `nil` otherwise.
    public var summary: OffenderSummary? = nil

    public init(binaries: [BinaryInventory], errors: [FileError], tool: ToolInfo = .current) {
        self.schemaVersion = 1
        self.tool = tool
        self.binaries = binaries
        self.errors = errors
    }
}

/// A file premain could not audit, and why.
public struct FileError: Codable, Sendable, Equatable {
    public var path: String
    public var reason: Reason
    public var message: String

    /// Why the file could not be audited.
    public enum Reason: String, Codable, Sendable {
        case missing, unreadable, notRegularFile, notELF, malformed
    }

    public init(path: String, reason: Reason, message: String) {
        self.path = path
        self.reason = reason
        self.message = message
    }
}

/// Name and version of the tool that wrote a report.
public struct ToolInfo: Codable, Sendable, Equatable {
    public var name: String
    public var version: String

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }

    public static let current = ToolInfo(name: "premain", version: premainVersion)
}

/// premain's version, printed by `--version` and written into every report.
public let premainVersion = "0.1.0"
