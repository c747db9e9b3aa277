// Fuzz target: ELF bytes through the static audit path, in memory (libelf's elf_memory), so no
// file is written per input. Built by scripts/fuzz with -sanitize=fuzzer,address.
import ELFKit
import PremainAudit
import PremainModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzELFAudit(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let file = try? ELFFile(memory: bytes, path: "fuzz.elf") else { return 0 }
    let options = InventoryOptions(symbolLists: true, demangle: true, sourceLines: false)
    let inventory = InventoryBuilder.audit(file, options: options)
    // Symbol binding: every import of the file looked up in the file's own hash tables.
    if let lookup = ELFSymbolLookup(file) {
        for name in inventory.symbols.importedNames?.prefix(64) ?? [] { _ = lookup.definitions(of: name) }
        for name in inventory.symbols.exportedNames?.prefix(64) ?? [] { _ = lookup.definitions(of: name) }
    }
    return 0
}
