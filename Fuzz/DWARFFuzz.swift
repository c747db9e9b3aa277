// Fuzz target: the DWARF of an ELF image, in memory: through libdw, the inlined copies of every
// function (trace's probe planning) and the source line of each address they name; through
// LineTable (.debug_line alone, as audit reads initializer and Swift suspect lines), the lines
// of those addresses, of the sections' starts and of the first symbols. Built by scripts/fuzz
// with -sanitize=fuzzer,address.
import ELFKit
import PremainAudit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDWARF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var addresses: [UInt64] = []
    if let info = DebugInfo(memory: bytes, path: "fuzz.debug") {
        for copy in info.inlinedCopies(where: { _ in true }).prefix(64) {
            addresses.append(copy.entry)
            _ = info.sourceLocation(of: copy.entry)
            for exit in copy.exits.prefix(4) { _ = info.sourceLocation(of: exit) }
        }
    }
    if let file = try? ELFFile(memory: bytes, path: "fuzz.debug") {
        addresses += [file.entry, 0, UInt64.max] + file.sections.prefix(64).flatMap { [$0.address, $0.address &+ 1] }
        if let symbols = file.staticSymbols {
            for index in 0..<min(symbols.count, 64) {
                if let symbol = symbols[index] { addresses.append(symbol.value) }
            }
        }
        _ = LineTable(file).answers(for: addresses)
    }
    return 0
}
