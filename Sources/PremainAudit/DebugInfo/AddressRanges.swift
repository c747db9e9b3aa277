import ELFKit

/// The compile units' code ranges from `.debug_aranges` (DWARF 5, 6.1.2): which unit holds an
/// address, without reading `.debug_info`. Units are named by their rank: the position of their
/// `.debug_info` offset among those of every set, which is also the position of their line
/// program in `.debug_line` when the linker kept both sections in the objects' order (the
/// caller checks that by the program's own ranges).
///
/// Built only when every set reads cleanly: version 2, the file's address size, no segment
/// selectors, one set per unit; anything else gives `nil` (the caller then runs every line
/// program).
struct AddressRanges {
    /// One address range of a unit.
    struct Entry: Equatable {
        var range: Range<UInt64>
        var unit: Int
    }

    /// Every non-empty range, in the order of the sets.
    private(set) var entries: [Entry] = []
    /// Per unit rank, where its ranges are in `entries`.
    private var slices: [Range<Int>] = []
    /// How many units there are.
    var unitCount: Int { slices.count }

    /// Reads `.debug_aranges`; `nil` when a set is malformed or unusual (see the type's note),
    /// or when there is no set.
    init?(_ reader: ByteReader, addressSize: Int) {
        var cursor = DWARFCursor(reader, at: 0)
        var sets: [(infoOffset: UInt64, slice: Range<Int>)] = []
        // Each entry's `unit` is its set's index until the ranks are known.
        entries.reserveCapacity(reader.count / (2 * addressSize))
        while cursor.remaining > 0 {
            let start = cursor.position
            guard let length32 = cursor.u32() else { return nil }
            var length = UInt64(length32)
            var offsetSize = 4
            if length32 == 0xffff_ffff {
                guard let length64 = cursor.u64() else { return nil }
                length = length64
                offsetSize = 8
            }
            guard length <= UInt64(cursor.remaining) else { return nil }
            let end = cursor.position + Int(length)
            cursor.end = end
            guard cursor.u16() == 2, let infoOffset = cursor.offset(size: offsetSize), let size = cursor.u8(),
                Int(size) == addressSize, cursor.u8() == 0
            else { return nil }
            // Tuples start at a multiple of twice the address size from the set's start.
            let tuple = 2 * addressSize
            let header = cursor.position - start
            guard cursor.skip((tuple - header % tuple) % tuple) else { return nil }
            let first = entries.count
            while true {
                guard let address = cursor.offset(size: addressSize), let count = cursor.offset(size: addressSize)
                else { return nil }
                if address == 0, count == 0 { break }
                guard count <= UInt64.max - address else { return nil }
                if count > 0 { entries.append(Entry(range: address..<address + count, unit: sets.count)) }
            }
            sets.append((infoOffset, first..<entries.count))
            cursor.end = reader.count
            cursor.position = end
        }
        guard !sets.isEmpty else { return nil }
        // Linkers write the sets in the units' order: then each set's index is its rank.
        let inOrder = zip(sets, sets.dropFirst()).allSatisfy { $0.infoOffset < $1.infoOffset }
        guard !inOrder else {
            slices = sets.map(\.slice)
            return
        }
        let order = sets.indices.sorted { sets[$0].infoOffset < sets[$1].infoOffset }
        var rank = Array(repeating: 0, count: sets.count)
        for (position, index) in order.enumerated() {
            guard position == 0 || sets[order[position - 1]].infoOffset != sets[index].infoOffset else { return nil }
            rank[index] = position
        }
        for index in entries.indices { entries[index].unit = rank[entries[index].unit] }
        slices = Array(repeating: 0..<0, count: sets.count)
        for (index, set) in sets.enumerated() { slices[rank[index]] = set.slice }
    }

    /// The ranges of the unit at `rank`, sorted and merged where they touch.
    func ranges(ofUnit rank: Int) -> [Range<UInt64>] {
        Self.merged(entries[slices[rank]].map(\.range))
    }

    /// The rank of the one unit with a range holding `address`; `nil` when none or several do.
    func unit(holding address: UInt64) -> Int? {
        var found: Int?
        for entry in entries where entry.range.contains(address) {
            guard found == nil || found == entry.unit else { return nil }
            found = entry.unit
        }
        return found
    }

    /// `ranges` without empty ones, sorted, with ranges that overlap or touch made one.
    static func merged(_ ranges: [Range<UInt64>]) -> [Range<UInt64>] {
        var result: [Range<UInt64>] = []
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }
}
