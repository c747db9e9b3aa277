import ELFKit

/// The debug file and the DWARF of one audited file, each looked for once and only when first
/// asked for: the initializers' names, their source lines and the Swift suspects' source lines
/// share them, so the debug file is searched for once and its DWARF (which libdw inflates whole)
/// read once.
///
/// Not thread-safe: one audit of one file uses it.
final class DebugLookup {
    let file: ELFFile
    let locator: DebugFileLocator

    init(_ file: ELFFile, locator: DebugFileLocator) {
        self.file = file
        self.locator = locator
    }

    /// The file with DWARF for `file` (itself, or its separate debug file); `nil` when none.
    private(set) lazy var path: String? = locator.debugFile(for: file)

    /// That file's DWARF; `nil` when there is none.
    private(set) lazy var info: DebugInfo? = path.flatMap { DebugInfo(path: $0) }
}
