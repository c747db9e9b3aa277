import PremainModel
import PremainRender
import PremainSystem

/// What `audit`, `check`, `diff` and `pr` read from a folder: linked ELF files (and JSON
/// reports), with relocatable objects only on request; and the one note saying what was left out.
enum FolderOptions {
    static let includeObjects = Option.flag(
        "--include-objects",
        help:
            "Also read the relocatable objects (.o, .pcm) found in folders; by default only executables and shared libraries"
    )

    /// One `Note:` line on stderr naming what the folders held that was left out, when that
    /// includes relocatable objects or JSON files (other non-ELF files are skipped quietly).
    static func note(_ skipped: SkippedFiles?, in paths: [String]) {
        guard let skipped, skipped.isWorthANote, let summary = skipped.summary else { return }
        let folders = paths.filter { LocalFiles.kind($0) == .folder }
        let place = folders.count == 1 ? " in \(TextSafety.display(folders[0]))" : ""
        Console.note(summary + place)
    }
}
