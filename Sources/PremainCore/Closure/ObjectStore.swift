import ELFKit

#if canImport(Glibc)
import Glibc
#endif

/// What the resolver needs to know about one candidate file, read once.
public struct ObjectFacts: Sendable, Equatable {
    public var elfClass: ELFClass
    public var machine: ELFMachine
    public var endianness: ELFEndianness
    public var device: UInt64
    public var inode: UInt64
    public var soname: String?
    public var needed: [String]
    /// `DT_RPATH` split at colons; `[]` when absent or when `DT_RUNPATH` is present (glibc
    /// ignores `DT_RPATH` then).
    public var rpath: [String]
    public var runpath: [String]
    public var hasRunpath: Bool
    public var noDefaultLib: Bool
    public var interpreter: String?
    public var hasDynamic: Bool

    public init(_ file: ELFFile) {
        elfClass = file.elfClass
        machine = file.machine
        endianness = file.endianness
        device = file.device
        inode = file.inode
        soname = file.soname
        needed = file.neededLibraries
        hasRunpath = file.hasRunpath
        rpath = file.hasRunpath ? [] : file.rpath
        runpath = file.runpath
        noDefaultLib = file.noDefaultLib
        interpreter = file.interpreter
        hasDynamic = !file.dynamicEntries.isEmpty
    }
}

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
        var resolved = path
        if let pointer = realpath(path, nil) {
            resolved = String(cString: pointer)
            free(pointer)
        }
        return realPaths.insertIfAbsent(path, resolved)
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

/// A library's symbol tables, kept open for the symbol binding of many programs.
///
/// `@unchecked Sendable`: after construction only reads of the mapped file happen (symbol
/// entries, names and hash tables through `ELFSymbolLookup`), which are safe from any thread.
final class SymbolProvider: @unchecked Sendable {
    let file: ELFFile
    let lookup: ELFSymbolLookup
    let versions: ELFSymbolVersions?

    init(file: ELFFile, lookup: ELFSymbolLookup, versions: ELFSymbolVersions?) {
        self.file = file
        self.lookup = lookup
        self.versions = versions
    }
}
