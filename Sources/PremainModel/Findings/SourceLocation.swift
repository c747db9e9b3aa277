/// A place in a source file: a line of DWARF's line table (`file` as the compiler recorded it,
/// usually absolute), or a line of a build file (Package.swift, CMakeLists.txt, ...).
public struct SourceLocation: Codable, JSONKeyed, Hashable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based; 0 when DWARF gives the file but no line.
    public var line: Int

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case file, line
    }

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    public var description: String { "\(file):\(line)" }

    /// `file:line` with the file's last path component only ("Math.swift:42").
    public var shortText: String { "\(ObjectName.fileName(file)):\(line)" }
}
