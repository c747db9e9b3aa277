import PremainAudit
import PremainModel

/// Reads what the audit counts in each measured object (relocations by class, imported
/// symbols, size) from its file, so that its measured loading and relocation stand beside the
/// work they imply. An object that cannot be read as ELF (gone, not a file) is left out.
public enum ObjectFactsReader {
    public static func facts(for paths: [String]) -> [String: ObjectStaticFacts] {
        var found: [String: ObjectStaticFacts] = [:]
        let options = InventoryOptions(symbolLists: false, demangle: false, sourceLines: false)
        for path in Set(paths) where path.contains("/") {
            guard let inventory = try? InventoryBuilder.audit(path: path, options: options) else { continue }
            found[path] = facts(of: inventory)
        }
        return found
    }

    public static func facts(of inventory: BinaryInventory) -> ObjectStaticFacts {
        ObjectStaticFacts(
            census: inventory.relocations, bindNow: inventory.dynamic.bindNow,
            importedSymbols: inventory.symbols.imported, fileSize: inventory.header.fileSize)
    }
}
