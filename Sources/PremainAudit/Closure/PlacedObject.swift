import LosslessText
import PremainModel

/// A file a closure found under one host path, with everything the closures of a run report
/// about it worked out once (`ObjectStore.placed`): its facts, its real path, its cost, the
/// run-wide number of its device and inode and the run-wide numbers of its names. A folder
/// audit meets libc in every closure; a walk then compares and indexes integers, never the
/// bytes of a name or a path.
final class PlacedObject: Sendable {
    let facts: FileFacts
    /// The host path it was found under.
    let path: String
    /// `path` with symlinks and `..` resolved (`path` itself when it does not resolve).
    let realPath: String
    /// What it costs at start-up; `nil` when the store does not count costs.
    let cost: ObjectCost?
    /// Its device and inode, and their run-wide number (`NameNumbers` of the file identities).
    let identity: FileIdentity
    let fileNumber: Int
    /// Its `DT_NEEDED` names and `DT_SONAME` as run-wide name numbers (`ObjectStore.nameNumber`).
    let needed: [Int]
    let soname: Int?

    init(
        facts: FileFacts, path: String, realPath: String, cost: ObjectCost?, identity: FileIdentity, fileNumber: Int,
        needed: [Int], soname: Int?
    ) {
        self.facts = facts
        self.path = path
        self.realPath = realPath
        self.cost = cost
        self.identity = identity
        self.fileNumber = fileNumber
        self.needed = needed
        self.soname = soname
    }
}

/// A map from small non-negative integers (run-wide name or file numbers) to an object's index
/// in a walk: an array indexed by the number, grown on demand, so a look-up is a bounds check
/// and a load instead of hashing a key.
struct NumberIndex {
    private var slots: [Int32] = []

    /// The index stored for `number`, or `nil`.
    subscript(number: Int) -> Int? {
        guard number < slots.count else { return nil }
        let value = slots[number]
        return value < 0 ? nil : Int(value)
    }

    /// Stores `index` for `number` unless one is stored already (the first claim wins).
    mutating func claim(_ number: Int, _ index: Int) {
        if number >= slots.count {
            slots.append(contentsOf: repeatElement(-1, count: max(number + 1 - slots.count, slots.count)))
        }
        if slots[number] < 0 { slots[number] = Int32(truncatingIfNeeded: index) }
    }
}
