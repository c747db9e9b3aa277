import ELFKit
import PremainModel

/// A library's symbol tables, kept open for the symbol binding of many programs.
///
/// `@unchecked Sendable`: after construction only reads of the mapped file happen (symbol
/// entries, names and hash tables through `ELFSymbolLookup`), which are safe from any thread.
/// `file` is kept only to keep the mapping alive: its lazily read tables (`dynamicSymbols`,
/// `symbolVersions`, ...) fill in on first use and must not be asked for from here.
final class SymbolProvider: @unchecked Sendable {
    let file: ELFFile
    let lookup: ELFSymbolLookup
    let versions: ELFSymbolVersions?

    init(file: ELFFile, lookup: ELFSymbolLookup, versions: ELFSymbolVersions?) {
        self.file = file
        self.lookup = lookup
        self.versions = versions
    }
}
