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
}
