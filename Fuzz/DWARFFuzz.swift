// Fuzz target: the DWARF of an ELF image through libdw, in memory: inlined copies of every
// function (trace's probe planning) and the source line of each address they name (audit's
// initializer and Swift suspect locations). Built by scripts/fuzz with -sanitize=fuzzer,address.
import PremainAudit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDWARF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let info = DebugInfo(memory: UnsafeRawBufferPointer(start: data, count: size), path: "fuzz.debug") else { return 0 }
    for copy in info.inlinedCopies(where: { _ in true }).prefix(64) {
        _ = info.sourceLocation(of: copy.entry)
        for exit in copy.exits.prefix(4) { _ = info.sourceLocation(of: exit) }
    }
    return 0
}
