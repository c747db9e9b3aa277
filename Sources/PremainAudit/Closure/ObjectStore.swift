import ELFKit
import PremainModel
import PremainSystem

#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe memo of `ObjectFacts` and `ObjectCost` per path, shared by every closure of
/// one run so that auditing a folder opens each library once, not once per program.
public final class ObjectStore: Sendable {
    private struct Slot: Sendable {
        var facts: ObjectFacts?
        var cost: ObjectCost?
    }
    private let slots = SharedTable<String, Slot>()
    private let providers = SharedTable<String, SymbolProvider?>()
    private let realPaths = SharedTable<String, String>()
    /// Count costs together with facts (one open per file instead of two).
    public let measuresCosts: Bool

    public init(measuresCosts: Bool = true) {
        self.measuresCosts = measuresCosts
    }

    /// `path` with symlinks and `..` resolved (`path` itself when it does not resolve), memoized.
    public func realPath(_ path: String) -> String {
        if let known = realPaths.value(path) { return known }
        return realPaths.insertIfAbsent(path, LocalFiles.realPath(path) ?? path)
    }

    /// The open file and its symbol look-up, shared by every program that binds to it;
    /// `nil` when it cannot be opened or has no `.dynsym`.
    func provider(_ path: String) -> SymbolProvider? {
        if let known = providers.value(path) { return known }
        var made: SymbolProvider?
        if let file = try? ELFFile(path: path), let lookup = ELFSymbolLookup(file) {
            made = SymbolProvider(file: file, lookup: lookup, versions: file.symbolVersions)
        }
        return providers.insertIfAbsent(path, made)
    }

    /// The facts of the ELF file at `path`; `nil` when it cannot be opened as ELF.
    public func facts(_ path: String) -> ObjectFacts? {
        if let known = slots.value(path) { return known.facts }
        let file = try? ELFFile(path: path)
        let facts = file.map(ObjectFacts.init)
        let cost = measuresCosts ? file.map(ObjectCost.measure) : nil
        return slots.insertIfAbsent(path, Slot(facts: facts, cost: cost)).facts
    }

    /// The cost of the file at `path`, counted on first use; `nil` when it cannot be opened.
    public func cost(_ path: String) -> ObjectCost? {
        if let known = slots.value(path)?.cost { return known }
        guard let file = try? ELFFile(path: path) else { return nil }
        let cost = ObjectCost.measure(file)
        slots.update(path) { slot in
            var value = slot ?? Slot(facts: ObjectFacts(file), cost: nil)
            value.cost = cost
            slot = value
        }
        return cost
    }
}
