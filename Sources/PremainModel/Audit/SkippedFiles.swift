/// Files found while walking a folder and left out, counted by why, so that a command can say
/// so once instead of auditing a build folder's intermediate files (SwiftPM's `.build/release`
/// holds far more `.o`, `.pcm` and `.json` files than programs).
public struct SkippedFiles: Codable, Sendable, Equatable {
    /// ELF relocatable objects (`ET_REL`: `.o` files, Clang's `.pcm` modules on Linux), left
    /// out unless `--include-objects`.
    public var objects: Int
    /// The file-name extensions of `objects`, sorted (`[".o", ".pcm"]`); `""` for a name
    /// without one.
    public var objectExtensions: [String]
    /// Files that are neither an ELF executable, library or object nor a report: archives,
    /// `.swiftmodule`, sources, core dumps, files under 4 bytes.
    public var others: Int
    /// JSON files that are not premain reports (SwiftPM's `output-file-map.json`,
    /// `description.json`), by path; `[]` when none, or when reports are not read.
    public var notReports: [String]

    public init(objects: Int = 0, objectExtensions: [String] = [], others: Int = 0, notReports: [String] = []) {
        self.objects = objects
        self.objectExtensions = objectExtensions
        self.others = others
        self.notReports = notReports
    }

    /// `true` when nothing was left out.
    public var isEmpty: Bool { objects == 0 && others == 0 && notReports.isEmpty }

    /// `true` when something was left out that a user may have meant to be read: relocatable
    /// objects or JSON files. Other files (sources, archives, text) are skipped quietly.
    public var isWorthANote: Bool { objects > 0 || !notReports.isEmpty }

    /// Adds another folder's counts.
    public mutating func add(_ other: SkippedFiles) {
        objects += other.objects
        objectExtensions = Array(Set(objectExtensions + other.objectExtensions)).sorted()
        others += other.others
        notReports += other.notReports
    }

    /// Counts one relocatable object named `path`.
    public mutating func addObject(_ path: String) {
        objects += 1
        let name = ObjectName.fileName(path)
        let ext = name.lastIndex(of: ".").map { String(name[$0...]) } ?? ""
        if !objectExtensions.contains(ext) {
            objectExtensions.append(ext)
            objectExtensions.sort()
        }
    }

    /// One sentence for people: "skipped 148 relocatable objects (.o, .pcm; --include-objects
    /// adds them), 2 JSON files that are not premain reports (description.json,
    /// output-file-map.json) and 31 other files"; `nil` when nothing was skipped.
    public var summary: String? {
        var parts: [String] = []
        if objects > 0 {
            let kinds = objectExtensions.filter { !$0.isEmpty }.prefix(4).joined(separator: ", ")
            parts.append(
                "\(objects) relocatable object\(objects == 1 ? "" : "s") (\(kinds.isEmpty ? "" : kinds + "; ")--include-objects adds them)"
            )
        }
        if !notReports.isEmpty {
            let names = notReports.map(ObjectName.fileName)
            let shown =
                Array(Set(names)).sorted().prefix(3).joined(separator: ", ") + (Set(names).count > 3 ? ", …" : "")
            parts.append(
                "\(notReports.count) JSON file\(notReports.count == 1 ? "" : "s") that \(notReports.count == 1 ? "is" : "are") not a premain report (\(shown))"
            )
        }
        if others > 0 {
            parts.append(
                "\(others) \(parts.isEmpty ? "" : "other ")file\(others == 1 ? "" : "s") that \(others == 1 ? "is" : "are") not an ELF executable or library"
            )
        }
        guard let last = parts.popLast() else { return nil }
        return "skipped " + (parts.isEmpty ? last : parts.joined(separator: ", ") + " and " + last)
    }
}
