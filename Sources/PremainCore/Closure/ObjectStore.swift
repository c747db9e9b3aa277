import ELFKit
import Synchronization

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
    private let slots = Mutex<[String: Slot]>([:])

    public init() {}

    /// The facts of the ELF file at `path`; `nil` when it cannot be opened as ELF.
    public func facts(_ path: String) -> ObjectFacts? {
        if let known = slots.withLock({ $0[path] }) { return known.facts }
        let facts = (try? ELFFile(path: path)).map(ObjectFacts.init)
        slots.withLock { table in
            if table[path] == nil { table[path] = Slot(facts: facts, cost: nil) }
        }
        return facts
    }

    /// Records facts and cost for a file already open (the audited program itself).
    public func remember(_ file: ELFFile, cost: ObjectCost?) {
        let facts = ObjectFacts(file)
        slots.withLock { table in
            var slot = table[file.path] ?? Slot(facts: facts, cost: nil)
            slot.facts = facts
            if let cost { slot.cost = cost }
            table[file.path] = slot
        }
    }

    /// The cost of the file at `path`, counted on first use; `nil` when it cannot be opened.
    public func cost(_ path: String) -> ObjectCost? {
        if let known = slots.withLock({ $0[path]?.cost }) { return known }
        guard let file = try? ELFFile(path: path) else { return nil }
        let cost = ObjectCost.measure(file)
        slots.withLock { table in
            var slot = table[path] ?? Slot(facts: ObjectFacts(file), cost: nil)
            slot.cost = cost
            table[path] = slot
        }
        return cost
    }
}
