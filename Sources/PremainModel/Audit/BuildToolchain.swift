/// Who made a file, as far as the file tells: the linker (from gold's version note or the
/// `.comment` strings) and the languages it was written in (Swift metadata sections and
/// runtime, the C++ runtime). Rules choose their advice by it: a flag gold rejects is no advice
/// for a gold-linked file.
public struct BuildToolchain: Codable, JSONKeyed, Sendable, Equatable {
    /// The static linker that wrote the file.
    public enum Linker: String, Codable, Sendable, CaseIterable {
        /// GNU ld (BFD). It leaves no mark of its own: told by a `.comment` that names a compiler
        /// but no other linker.
        case gnuLD
        /// GNU gold, the Swift toolchain's default linker on Linux: writes `NT_GNU_GOLD_VERSION`.
        case gold
        /// LLVM lld: ".comment" "Linker: LLD <version>".
        case lld
        /// mold: ".comment" "mold <version> (…; compatible with GNU ld)".
        case mold
        /// No evidence (the file's `.comment` was stripped, as Debian's packages are).
        case unknown

        /// The name people know: "GNU ld", "gold", "lld", "mold", "an unknown linker".
        public var displayName: String {
            switch self {
            case .gnuLD: "GNU ld"
            case .gold: "gold"
            case .lld: "lld"
            case .mold: "mold"
            case .unknown: "an unknown linker"
            }
        }

        /// `true` when the linker packs relative relocations with `-z pack-relative-relocs`
        /// (GNU ld 2.38+, lld 15+, mold 1.7+); gold rejects the option. `nil` when unknown.
        public var packsRelativeRelocations: Bool? {
            switch self {
            case .gnuLD, .lld, .mold: true
            case .gold: false
            case .unknown: nil
            }
        }
    }

    /// A language whose code or runtime the file holds.
    public enum Language: String, Codable, Sendable, CaseIterable {
        case swift, cxx, c

        public var displayName: String {
            switch self {
            case .swift: "Swift"
            case .cxx: "C++"
            case .c: "C"
            }
        }
    }

    /// What told the linker.
    public enum Evidence: String, Codable, Sendable {
        /// gold's `NT_GNU_GOLD_VERSION` note.
        case goldNote
        /// A `.comment` string that names the linker.
        case comment
        /// A `.comment` that names compilers only: GNU ld adds nothing there.
        case commentWithoutLinker
        /// No `.comment` and no note.
        case none
    }

    public var linker: Linker
    /// The linker's version when it says one ("1.16", "21.0.0"); `nil` otherwise.
    public var linkerVersion: String?
    public var evidence: Evidence
    /// Languages found, Swift first; `[.c]` when neither Swift nor C++ was found.
    public var languages: [Language]
    /// The `.comment` strings (compilers and linkers), as the file has them.
    public var comments: [String]
    /// Libraries a Swift object asks the linker for (`.swift1_autolink_entries`, e.g.
    /// "-lswiftCore"); `[]` for linked files, which seldom keep the section.
    public var autolinkEntries: [String]

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case autolinkEntries, comments, evidence, languages, linker, linkerVersion
    }

    public init(
        linker: Linker, linkerVersion: String? = nil, evidence: Evidence, languages: [Language],
        comments: [String] = [], autolinkEntries: [String] = []
    ) {
        self.linker = linker
        self.linkerVersion = linkerVersion
        self.evidence = evidence
        self.languages = languages
        self.comments = comments
        self.autolinkEntries = autolinkEntries
    }

    public var isSwift: Bool { languages.contains(.swift) }

    /// "gold 1.16", "lld 21.0.0", "GNU ld", "an unknown linker".
    public var linkerDescription: String {
        linkerVersion.map { "\(linker.displayName) \($0)" } ?? linker.displayName
    }
}
