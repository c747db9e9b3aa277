import PremainModel
import PremainSystem

/// Names each C++ translation unit's initializer by its source file and lists the globals it
/// constructs, from DWARF; finds where a unit includes the header of a global defined there
/// (`std::__ioinit` of <iostream>) by reading the unit's source when it is on this machine.
enum TranslationUnits {
    /// Sets `sourceFile`, `name` and `globals` of every C++ translation-unit entry of `census`
    /// from `debug`'s DWARF, and its `location` to its first own global's definition (else the
    /// `#include` of a header defining one); leaves them as `classify` set them when there is no
    /// DWARF for the entry's address.
    static func describe(_ census: inout InitializerCensus, debug: DebugLookup, demangle: Bool) {
        let units = census.entries.indices.filter { census.entries[$0].kind == .cxxTranslationUnit }
        guard !units.isEmpty, let info = debug.info else { return }
        for index in units {
            guard let text = census.entries[index].address, let address = hexValue(text), address != 0,
                let unit = info.compileUnit(containing: address)
            else { continue }
            var entry = census.entries[index]
            entry.sourceFile = unit.relativeName
            entry.name = TranslationUnitName.name(
                sourceFile: unit.relativeName, keyedName: entry.translationUnit, demangle: Demangler.demangle)
            let source = SourceText(path: unit.path)
            entry.globals = info.constructions(ofInitializerAt: address).map { construction in
                var global = ConstructedGlobal(
                    variable: construction.variable,
                    constructor: demangle ? construction.constructor : construction.callee,
                    location: construction.location)
                if construction.location.file != unit.path {
                    global.includedAt = source.includeLine(of: construction.location.file).map {
                        SourceLocation(file: unit.path, line: $0)
                    }
                }
                return global
            }
            // Where to look for the unit: its first own global, else the include that brings one.
            let globals = entry.globals ?? []
            if let own = globals.first(where: { $0.location.file == unit.path })?.location
                ?? globals.lazy.compactMap(\.includedAt).first
            {
                entry.location = own
            }
            census.entries[index] = entry
        }
    }
}

/// A translation unit's source file, read once on first use (at most 16 MiB); empty when it is
/// not on this machine.
final class SourceText {
    let path: String
    init(path: String) { self.path = path }

    private lazy var lines: [Substring] = {
        guard let bytes = LocalFiles.read(path, limit: 16 << 20) else { return [] }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
    }()

    /// The 1-based line of the file's own `#include <NAME>` or `#include "NAME"` of the header
    /// at `header` (matched by its last path component); `nil` when the file is not readable or
    /// includes it only through another header.
    func includeLine(of header: String) -> Int? {
        let name = ObjectName.fileName(header)
        guard !name.isEmpty else { return nil }
        for (index, line) in lines.enumerated() {
            var rest = line.drop { $0 == " " || $0 == "\t" }
            guard rest.first == "#" else { continue }
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
            guard rest.hasPrefix("include") else { continue }
            rest = rest.dropFirst("include".count).drop { $0 == " " || $0 == "\t" }
            guard let open = rest.first, open == "<" || open == "\"" else { continue }
            let close: Character = open == "<" ? ">" : "\""
            guard let end = rest.dropFirst().firstIndex(of: close) else { continue }
            let included = rest[rest.index(after: rest.startIndex)..<end]
            if included == name || included.hasSuffix("/" + name) { return index + 1 }
        }
        return nil
    }
}
