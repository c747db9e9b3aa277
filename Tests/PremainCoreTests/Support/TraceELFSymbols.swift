import ELFKit

/// Symbol addresses read independently of the tracer, to check what a test relies on.
enum ELFFileForTests {
    /// Function symbols of `path` by name (static table first).
    static func symbols(_ path: String) throws -> [String: UInt64] {
        let file = try ELFFile(path: path)
        var result: [String: UInt64] = [:]
        for table in [file.staticSymbols, file.dynamicSymbols].compactMap({ $0 }) {
            table.forEach { symbol in
                if let name = table.name(of: symbol), !name.isEmpty, result[name] == nil { result[name] = symbol.value }
                return true
            }
        }
        return result
    }
}
