import ELFKit
import Testing

/// The raw scans of a symbol table (issue 37) agree with the decoded entries they stand for.
@Suite struct SymbolScanTests {
    static let withSymtab = ["/opt/swift/usr/lib/swift/linux/libswiftCore.so", "/opt/swift/usr/bin/swift-format"]

    /// `definedIndices` lists the defined entries whose value is wanted, from an array (sorted)
    /// and from a set alike, with values that are absent, 0 and `UInt64.max` among them.
    @Test func definedIndicesAgreeWithDecodedEntries() throws {
        for path in Self.withSymtab + ["/lib/x86_64-linux-gnu/libc.so.6"] {
            let file = try ELFFile(path: path)
            let table = try #require(file.staticSymbols ?? file.dynamicSymbols)
            var wanted: Set<UInt64> = [0, .max, 1, 3]
            var step = 0
            table.forEach { symbol in
                step += 1
                if symbol.isDefined, step % 97 == 0 { wanted.insert(symbol.value) }
                if step % 89 == 0 { wanted.insert(symbol.value &+ 2) }
                return true
            }
            var expected: [Int] = []
            table.forEach { symbol in
                if symbol.index > 0, symbol.isDefined, wanted.contains(symbol.value) { expected.append(symbol.index) }
                return true
            }
            #expect(expected.count > 10, "\(path)")
            #expect(table.definedIndices(withValuesIn: wanted.sorted()) == expected, "\(path)")
            #expect(table.definedIndices(withValuesIn: wanted) == expected, "\(path)")
            #expect(table.definedIndices(withValuesIn: Set<UInt64>()).isEmpty)
            // One value: the filter at its smallest.
            let one = try #require(expected.first.flatMap { table[$0]?.value })
            let ones = expected.filter { table[$0]?.value == one }
            #expect(table.definedIndices(withValuesIn: [one]) == ones, "\(path)")
        }
    }

    /// `definedFunctionIndices` lists the defined functions whose names start with a prefix,
    /// the same by chunks as in one pass.
    @Test func definedFunctionIndicesAgreeWithDecodedEntries() throws {
        let prefixes = [[UInt8(ascii: "$")], Array("_$".utf8), Array("_T".utf8), Array("_ZN".utf8)]
        for path in Self.withSymtab {
            let file = try ELFFile(path: path)
            let table = try #require(file.staticSymbols)
            var expected: [Int] = []
            table.forEach { symbol in
                guard symbol.index > 0, symbol.isDefined, symbol.kind == .function,
                    let name = table.nameBytes(of: symbol)
                else { return true }
                if prefixes.contains(where: { name.starts(with: $0) }) { expected.append(symbol.index) }
                return true
            }
            #expect(expected.count > 100, "\(path)")
            #expect(table.definedFunctionIndices(namePrefixes: prefixes) == expected, "\(path)")
            let chunk = 1000
            let chunked = stride(from: 0, to: table.count, by: chunk).flatMap {
                table.definedFunctionIndices(namePrefixes: prefixes, within: $0..<min($0 + chunk, table.count))
            }
            #expect(chunked == expected, "\(path)")
        }
    }

    /// `nameBytes(ofEntry:)` gives what `nameBytes(of:)` gives for the decoded entry, and
    /// `nil` outside the table.
    @Test func nameBytesOfAnEntryAreThoseOfItsSymbol() throws {
        let file = try ELFFile(path: "/lib/x86_64-linux-gnu/libc.so.6")
        let table = try #require(file.dynamicSymbols)
        for index in 0..<table.count {
            let symbol = try #require(table[index])
            let direct = table.nameBytes(ofEntry: index).map(Array.init)
            #expect(direct == table.nameBytes(of: symbol).map(Array.init))
        }
        #expect(table.nameBytes(ofEntry: -1) == nil)
        #expect(table.nameBytes(ofEntry: table.count) == nil)
    }
}
