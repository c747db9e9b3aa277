/// A fixed-size open-addressing table of record indices (linear probing), for the joins of a
/// million launches without a `Hasher` or an allocation per launch: the caller hashes its key
/// with `mix` and says, given an index, whether that record has the key.
struct FieldHashTable {
    private(set) var slots: [Int32]
    private let mask: Int

    /// Room for `capacity` keys at most half full.
    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Int32](repeating: -1, count: size)
        mask = size - 1
    }

    /// A 64-bit finaliser (MurmurHash3's fmix64): every input bit moves every output bit.
    static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }

    /// The slot that holds the key (an index for which `matches` is true), or the empty slot
    /// where it goes.
    func slot(hash: UInt64, matches: (Int32) -> Bool) -> Int {
        var index = Int(truncatingIfNeeded: hash) & mask
        while slots[index] >= 0 && !matches(slots[index]) { index = (index + 1) & mask }
        return index
    }

    /// The index in `slot`; `nil` when empty.
    subscript(slot: Int) -> Int32? {
        get { slots[slot] >= 0 ? slots[slot] : nil }
        set { slots[slot] = newValue ?? -1 }
    }
}

/// The number of distinct 64-bit values, counted in a `FieldHashTable` over their positions.
struct FieldDistinctCounter {
    private var table: FieldHashTable
    private var values: [UInt64] = []

    init(capacity: Int) {
        table = FieldHashTable(capacity: capacity)
        values.reserveCapacity(64)
    }

    var count: Int { values.count }

    mutating func insert(_ value: UInt64) {
        let slot = table.slot(hash: FieldHashTable.mix(value)) { values[Int($0)] == value }
        if table[slot] == nil {
            table[slot] = Int32(values.count)
            values.append(value)
        }
    }
}
