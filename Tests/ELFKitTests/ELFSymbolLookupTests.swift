import ELFKit
import Testing

@Suite struct ELFSymbolLookupTests {
    /// Every defined `.dynsym` name of libc is found through `.gnu.hash` at its own index, and
    /// names that are not there are not found.
    @Test func gnuHashFindsEveryDefinedSymbolOfLibc() throws {
        let file = try ELFFile(path: "/lib/x86_64-linux-gnu/libc.so.6")
        let lookup = try #require(ELFSymbolLookup(file))
        var checked = 0
        lookup.symbols.forEach { symbol in
            guard symbol.isDefined, let name = lookup.symbols.name(of: symbol), !name.isEmpty else { return true }
            #expect(lookup.definitions(of: name).contains(symbol.index), "\(name)")
            checked += 1
            return true
        }
        #expect(checked > 2000)
        #expect(lookup.definitions(of: "premain_no_such_symbol").isEmpty)
        #expect(lookup.definitions(of: "").isEmpty)
        // memcpy has several versions in libc: each is one definition.
        #expect(lookup.definitions(of: "memcpy").count >= 2)
    }

    /// A library without `.gnu.hash` and `.hash` still answers, by a scan.
    @Test func undefinedSymbolsAreNotDefinitions() throws {
        let file = try ELFFile(path: "/bin/ls")
        let lookup = try #require(ELFSymbolLookup(file))
        #expect(lookup.definitions(of: "malloc").isEmpty)
    }

    /// `firstDefinition` takes the first definition its test accepts, in the order
    /// `definitions(of:)` lists them, and `nil` when the test accepts none.
    @Test func firstDefinitionIsTheFirstAcceptedDefinition() throws {
        let file = try ELFFile(path: "/lib/x86_64-linux-gnu/libc.so.6")
        let lookup = try #require(ELFSymbolLookup(file))
        let all = lookup.definitions(of: "memcpy")
        try #require(all.count >= 2)
        var name = Array("memcpy".utf8)
        name.withUnsafeMutableBytes { bytes in
            let hashed = ELFSymbolLookup.HashedName(UnsafeRawBufferPointer(bytes))
            #expect(lookup.firstDefinition(of: hashed) { _ in true } == all.first)
            #expect(lookup.firstDefinition(of: hashed) { $0 != all[0] } == all[1])
            #expect(lookup.firstDefinition(of: hashed) { _ in false } == nil)
        }
    }

    /// The raw import and export counts by type agree with a count of decoded entries, on
    /// programs and libraries.
    @Test func importExportCountsAgreeWithDecodedEntries() throws {
        for path in ["/lib/x86_64-linux-gnu/libc.so.6", "/bin/ls", "/lib/x86_64-linux-gnu/libstdc++.so.6"] {
            let file = try ELFFile(path: path)
            let table = try #require(file.dynamicSymbols)
            var imported = [Int](repeating: 0, count: 16)
            var exported = [Int](repeating: 0, count: 16)
            table.forEach { symbol in
                guard symbol.index > 0 else { return true }
                let kind = Int(symbol.info & 0xf)
                if !symbol.isDefined {
                    imported[kind] += 1
                } else if [.global, .weak, .gnuUnique].contains(symbol.binding), [0, 3].contains(symbol.visibility),
                    symbol.kind != .section, symbol.kind != .file
                {
                    exported[kind] += 1
                }
                return true
            }
            let counts = table.importExportCounts()
            #expect(counts.imported == imported, "\(path)")
            #expect(counts.exported == exported, "\(path)")
            #expect(exported.reduce(0, +) + imported.reduce(0, +) > 50, "\(path)")
        }
    }
}
