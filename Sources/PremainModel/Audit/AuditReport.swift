import ELFValues

/// The result of `premain audit`: one inventory per ELF file, and the files that could not be
/// audited. Codable; JSON `schemaVersion` 1.
public struct AuditReport: Codable, Sendable, Equatable, KindedReport {
    public static let kind = ReportKind.audit
    public var schemaVersion: Int
    public var kind = ReportKindField<AuditReport>()
    public var tool: ToolInfo
    public var binaries: [BinaryInventory]
    /// Files that could not be read as ELF at all.
    public var errors: [FileError]
    /// Largest offenders when several files or a folder were audited; `nil` otherwise.
    public var summary: OffenderSummary? = nil
    /// Files left out of the folders walked (objects, non-ELF files); `nil` when nothing was.
    public var skipped: SkippedFiles? = nil
    /// Problems of this machine that left something out of every file's inventory (libdw not
    /// usable, so no source lines), one sentence each; `nil` when there were none.
    public var warnings: [String]? = nil

    public init(binaries: [BinaryInventory], errors: [FileError], tool: ToolInfo = .current) {
        self.schemaVersion = 1
        self.tool = tool
        self.binaries = binaries
        self.errors = errors
    }

    /// The JSON schema versions an audit report is read in: 1, where each closure object is a
    /// full record, and 2, where closures refer to a top-level `objects` table.
    public static let readableSchemaVersions = 1...2

    enum CodingKeys: String, CodingKey {
        case schemaVersion, kind, tool, binaries, errors, summary, skipped, objects, warnings
    }

    /// Reads schema 1 and 2; closure objects of schema 2 are filled in from `objects`, so the
    /// value is the same whichever schema it was written in (but `schemaVersion`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try container.decode(Int.self, forKey: .schemaVersion)
        kind = try container.decode(ReportKindField<AuditReport>.self, forKey: .kind)
        tool = try container.decode(ToolInfo.self, forKey: .tool)
        binaries = try container.decode([BinaryInventory].self, forKey: .binaries)
        errors = try container.decode([FileError].self, forKey: .errors)
        summary = try container.decodeIfPresent(OffenderSummary.self, forKey: .summary)
        skipped = try container.decodeIfPresent(SkippedFiles.self, forKey: .skipped)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings)
        let records = try container.decodeIfPresent([ClosureObjectRecord].self, forKey: .objects) ?? []
        var byID: [Int: ClosureObjectRecord] = [:]
        for record in records { byID[record.id] = record }
        for index in binaries.indices {
            guard var closure = binaries[index].closure else { continue }
            func record(_ id: Int, _ path: [any CodingKey]) throws -> ClosureObjectRecord {
                guard let found = byID[id] else {
                    throw DecodingError.dataCorrupted(
                        .init(
                            codingPath: [CodingKeys.binaries, PathKey(index), PathKey("closure")] + path,
                            debugDescription: "object \(id) is not in the report's objects table"))
                }
                return found
            }
            for position in closure.objects.indices {
                guard let id = closure.objects[position].tableID else { continue }
                let place = [PathKey("objects"), PathKey(position)]
                let loader = try closure.objects[position].tableNeededBy.map { try record($0, place) }
                closure.objects[position].fill(
                    from: try record(id, place), loader: loader, programPath: binaries[index].path)
            }
            for position in closure.top.indices {
                guard let id = closure.top[position].tableID else { continue }
                closure.top[position].fill(from: try record(id, [PathKey("top"), PathKey(position)]))
            }
            binaries[index].closure = closure
        }
    }

    /// Schema 2 when the encoder carries a `ClosureObjectTable` (then with `objects`), else
    /// schema 1, whatever `schemaVersion` says.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let table = encoder.userInfo[ClosureObjectTable.userInfoKey] as? ClosureObjectTable
        try container.encode(binaries, forKey: .binaries)
        try container.encode(errors, forKey: .errors)
        try container.encode(kind, forKey: .kind)
        if let table { try container.encode(table.records, forKey: .objects) }
        try container.encode(table == nil ? 1 : 2, forKey: .schemaVersion)
        try container.encodeIfPresent(skipped, forKey: .skipped)
        try container.encodeIfPresent(summary, forKey: .summary)
        try container.encode(tool, forKey: .tool)
        try container.encodeIfPresent(warnings, forKey: .warnings)
    }

    /// A key of an error's coding path: an array index or a field name.
    private struct PathKey: CodingKey {
        var intValue: Int?
        var stringValue: String
        init(_ index: Int) {
            intValue = index
            stringValue = "\(index)"
        }
        init(_ name: String) { stringValue = name }
        init?(intValue: Int) { self.init(intValue) }
        init?(stringValue: String) { self.init(stringValue) }
    }
}

/// A file premain could not audit, and why.
public struct FileError: Codable, Sendable, Equatable {
    public var path: String
    /// Why the file could not be audited.
    public var reason: ELFOpenFailure
    public var message: String

    public init(path: String, reason: ELFOpenFailure, message: String) {
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

/// The date of `premainVersion`, as the manual page shows it.
public let premainReleaseDate = "December 2, 2026"

/// The largest offenders among many audited files (`premain audit DIR`).
public struct OffenderSummary: Codable, Sendable, Equatable {
    /// One file and its figure.
    public struct Offender: Codable, Sendable, Equatable {
        public var path: String
        public var value: Int

        public init(path: String, value: Int) {
            self.path = path
            self.value = value
        }
    }

    /// Files audited.
    public var files: Int
    /// Summed over the files (each file's own tables, not closures).
    public var relocations: Int
    public var initializers: Int
    public var exported: Int
    /// Files with at least one missing library.
    public var filesWithMissing: Int
    /// Files with at least one unused `DT_NEEDED` entry.
    public var filesWithUnused: Int
    /// Heaviest first, at most `top` each.
    public var mostRelocations: [Offender]
    public var mostInitializers: [Offender]
    public var mostExported: [Offender]
    /// Objects in the closure (or `DT_NEEDED` entries when closures were off).
    public var mostDependencies: [Offender]
    /// Missing libraries in the closure.
    public var mostMissing: [Offender]
    /// Unused `DT_NEEDED` entries.
    public var mostUnused: [Offender]

    public init(_ binaries: [BinaryInventory], top: Int) {
        func rank(_ value: (BinaryInventory) -> Int) -> [Offender] {
            let ranked = binaries.map { Offender(path: $0.path, value: value($0)) }.filter { $0.value > 0 }
                .sorted { ($0.value, $1.path) > ($1.value, $0.path) }
            return Array(ranked.prefix(max(top, 0)))
        }
        files = binaries.count
        relocations = binaries.reduce(0) { $0 + $1.relocations.total }
        initializers = binaries.reduce(0) { $0 + $1.initializers.total }
        exported = binaries.reduce(0) { $0 + $1.symbols.exported }
        filesWithMissing = binaries.filter { !($0.closure?.missing.isEmpty ?? true) }.count
        filesWithUnused = binaries.filter { !($0.unusedNeeded?.isEmpty ?? true) }.count
        mostRelocations = rank { $0.relocations.total }
        mostInitializers = rank { $0.initializers.own }
        mostExported = rank { $0.symbols.exported }
        mostDependencies = rank { $0.closure?.objects.count ?? $0.needed.count }
        mostMissing = rank { $0.closure?.missing.count ?? 0 }
        mostUnused = rank { $0.unusedNeeded?.count ?? 0 }
    }
}
