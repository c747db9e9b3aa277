import ELFKit
import PremainModel

/// The debug file and the DWARF of one audited file, each looked for once and only when first
/// asked for: the initializers' names, their source lines and the Swift suspects' source lines
/// share them, so the debug file is searched for and opened once. Source lines of compressed
/// DWARF come from the line tables alone (`LineTable`, which decompresses only `.debug_line`
/// and its strings); libdw (`DebugInfo`, which decompresses all the DWARF) is opened only for
/// the addresses the line tables cannot answer for sure, and for uncompressed DWARF.
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

    /// That file opened by ELFKit, on its own also when it is `file` (what its readers note
    /// stays out of `file.diagnostics`, which the audit reports); `nil` when there is none or it
    /// does not open.
    private(set) lazy var debugFile: ELFFile? = path.flatMap { try? ELFFile(path: $0) }

    /// The line tables of that file when its `.debug_info` is compressed; `nil` when there is
    /// no such file or its DWARF is not compressed. libdw decompresses every DWARF section when
    /// it opens a file, then reads one unit's line table per address: reading every line table
    /// costs less only when that decompression is saved (libc's debug file: 206 M instructions
    /// in libdw, 77 M here; libasan's uncompressed DWARF: a few M in libdw, 38 M here).
    private(set) lazy var lines: LineTable? = debugFile.flatMap { file in
        file.sections.contains {
            $0.name == ".zdebug_info" || $0.name == ".debug_info" && $0.flags & ELFSection.flagCompressed != 0
        }
            ? LineTable(file) : nil
    }

    /// That file's DWARF through libdw; `nil` when there is none.
    private(set) lazy var info: DebugInfo? = path.flatMap { DebugInfo(path: $0) }

    /// The source location of each of `addresses` that has one, as
    /// `DebugInfo.sourceLocation(of:)` gives it: from the line tables, or from libdw for the
    /// addresses they decline. `[:]` when no DWARF is found.
    func sourceLocations(of addresses: [UInt64]) -> [UInt64: SourceLocation] {
        guard !addresses.isEmpty, path != nil else { return [:] }
        let answers = lines?.answers(for: addresses) ?? [:]
        var locations: [UInt64: SourceLocation] = [:]
        for address in Set(addresses) {
            switch answers[address] {
            case .location(let location)?:
                locations[address] = location
            case .declined?, nil:
                locations[address] = info?.sourceLocation(of: address)
            }
        }
        return locations
    }
}
