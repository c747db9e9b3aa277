#if canImport(Glibc)
    import Glibc
#endif

/// Finds dynamic symbols by name the way the loader does: through `.gnu.hash` (bloom filter,
/// buckets, chains) or `.hash`, falling back to one pass over `.dynsym` when neither is
/// usable. Out-of-range indices in a corrupt table end the search; they never trap.
/// A class: one look-up serves every program that binds to the object, without copying its
/// tables per call.
public final class ELFSymbolLookup {
    public let symbols: ELFSymbolTable
    private let gnu: GNUHash?
    private let sysv: SysVHash?
    private let byName: [String: [Int]]?

    struct GNUHash {
        let data: ByteReader
        let bucketCount: Int
        let symbolOffset: Int
        let bloomWords: Int
        let bloomShift: UInt32
        let wordSize: Int
        var bucketsStart: Int { 16 + bloomWords * wordSize }
        var chainsStart: Int { bucketsStart + bucketCount * 4 }
    }

    struct SysVHash {
        let data: ByteReader
        let bucketCount: Int
        let chainCount: Int
    }

    /// Longest `.gnu.hash` chain walked per look-up. Linkers keep chains a few entries long;
    /// a table with a longer one (a crafted chain that never ends) is not used, and the
    /// symbols are indexed by name instead, so binding stays linear in the number of imports.
    static let maxChainLength = 256

    /// `true` when look-ups go through a name index built from `.dynsym` (no usable hash
    /// table), not through `.gnu.hash` or `.hash`.
    public var isIndexedByName: Bool { byName != nil }

    /// The longest run of chain entries without the end bit, in one pass over the chains.
    static func longestChain(_ table: GNUHash, symbolCount: Int) -> Int {
        var longest = 0
        var run = 0
        var index = table.symbolOffset
        let chains = table.data.bytes
        if !table.data.bigEndian, let start = chains.baseAddress, index < symbolCount,
            table.chainsStart <= chains.count, (chains.count - table.chainsStart) / 4 >= symbolCount - index
        {
            // Every chain word is inside the table (checked once): plain loads, no per-word check.
            var at = start + table.chainsStart
            for _ in index..<symbolCount {
                run += 1
                if at.loadUnaligned(as: UInt32.self) & 1 != 0 {
                    longest = max(longest, run)
                    run = 0
                }
                at += 4
            }
            return max(longest, run)
        }
        while index < symbolCount, let chain = table.data.u32(at: table.chainsStart + (index - table.symbolOffset) * 4)
        {
            run += 1
            longest = max(longest, run)
            if chain & 1 != 0 { run = 0 }
            index += 1
        }
        return longest
    }

    /// `true` when walking every `.hash` bucket visits at most each chain entry once, as in a
    /// table a linker wrote; a crafted table whose chains loop or share entries is not used
    /// (its look-ups would each walk up to the whole table).
    static func chainsAreSound(_ table: SysVHash) -> Bool {
        var budget = table.chainCount
        for bucket in 0..<table.bucketCount {
            guard var index = table.data.u32(at: 8 + bucket * 4).map(Int.init) else { return false }
            while index != 0 {
                guard index < table.chainCount, budget > 0,
                    let next = table.data.u32(at: 8 + (table.bucketCount + index) * 4)
                else { return false }
                budget -= 1
                index = Int(next)
            }
        }
        return true
    }

    /// `nil` when the file has no `.dynsym`.
    public init?(_ file: ELFFile) {
        guard let symbols = file.dynamicSymbols else { return nil }
        self.symbols = symbols
        var gnu: GNUHash?
        var sysv: SysVHash?
        if let section = file.sections.first(where: { $0.type == .gnuHash && Int($0.link) == symbols.section.index }),
            let data = file.bytes(of: section),
            let buckets = data.u32(at: 0), let offset = data.u32(at: 4), let bloom = data.u32(at: 8),
            let shift = data.u32(at: 12)
        {
            let candidate = GNUHash(
                data: data, bucketCount: Int(buckets), symbolOffset: Int(offset),
                bloomWords: Int(bloom), bloomShift: shift, wordSize: file.wordSize)
            if candidate.bucketCount > 0, candidate.bloomWords > 0, candidate.bucketCount < 1 << 28,
                candidate.bloomWords < 1 << 28, candidate.chainsStart <= data.count,
                Self.longestChain(candidate, symbolCount: symbols.count) <= Self.maxChainLength
            {
                gnu = candidate
            }
        }
        if gnu == nil,
            let section = file.sections.first(where: { $0.type == .hash && Int($0.link) == symbols.section.index }),
            let data = file.bytes(of: section), let buckets = data.u32(at: 0), let chains = data.u32(at: 4),
            buckets > 0, 8 + (UInt64(buckets) + UInt64(chains)) * 4 <= UInt64(data.count)
        {
            let candidate = SysVHash(data: data, bucketCount: Int(buckets), chainCount: Int(chains))
            if Self.chainsAreSound(candidate) { sysv = candidate }
        }
        self.gnu = gnu
        self.sysv = sysv
        if gnu == nil && sysv == nil {
            var index: [String: [Int]] = [:]
            symbols.forEach { symbol in
                if symbol.isDefined, let name = symbols.name(of: symbol), !name.isEmpty {
                    index[name, default: []].append(symbol.index)
                }
                return true
            }
            byName = index
        } else {
            byName = nil
        }
    }

    /// Indices of the defined `.dynsym` entries named `name` (several when the object defines
    /// more than one version); `[]` when there is none.
    public func definitions(of name: String) -> [Int] {
        if let byName { return byName[name] ?? [] }
        var utf8 = Array(name.utf8)
        return utf8.withUnsafeMutableBufferPointer { buffer in definitions(ofBytes: UnsafeRawBufferPointer(buffer)) }
    }

    /// `definitions(of:)` for a name given as bytes (without the NUL), e.g. straight from
    /// another file's string table.
    public func definitions(ofBytes name: UnsafeRawBufferPointer) -> [Int] {
        definitions(of: HashedName(name))
    }

    /// A name with its GNU hash, computed once for look-ups in many objects (the loader, too,
    /// hashes a name once per look-up, not once per object). The SysV hash, which only objects
    /// without `.gnu.hash` need, is computed when asked for.
    public struct HashedName {
        public let bytes: UnsafeRawBufferPointer
        let gnuHash: UInt32

        /// `bytes` must stay valid while the value is used.
        public init(_ bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
            var gnu: UInt32 = 5381
            for byte in bytes { gnu = gnu &* 33 &+ UInt32(byte) }
            gnuHash = gnu
        }

        var sysvHash: UInt32 {
            var sysv: UInt32 = 0
            for byte in bytes {
                sysv = (sysv << 4) &+ UInt32(byte)
                let high = sysv & 0xf000_0000
                if high != 0 { sysv ^= high >> 24 }
                sysv &= ~high
            }
            return sysv
        }
    }

    /// `definitions(of:)` for a name hashed once (`HashedName`).
    public func definitions(of name: HashedName) -> [Int] {
        var found: [Int] = []
        _ = firstDefinition(of: name) { index in
            found.append(index)
            return false
        }
        return found
    }

    /// The first defined entry named `name` (in hash-chain order, as `definitions(of:)` lists
    /// them) that `accept` takes, or `nil`: a look-up that allocates nothing, for binders that
    /// ask many objects about many names. Most names are rejected by the bloom filter alone.
    public func firstDefinition(of name: HashedName, where accept: (Int) -> Bool) -> Int? {
        if let byName {
            return byName[String(decoding: name.bytes, as: UTF8.self)]?.first(where: accept)
        }
        if let gnu { return gnuLookup(gnu, name.bytes, hash: name.gnuHash, accept) }
        if let sysv { return sysvLookup(sysv, name.bytes, hash: name.sysvHash, accept) }
        return nil
    }

    private func matches(_ index: Int, _ name: UnsafeRawBufferPointer) -> Bool {
        guard let offset = symbols.nameOffsetIfDefined(index),
            let stored = symbols.nameBytes(atOffset: offset)
        else { return false }
        return stored.count == name.count && memoryEqual(stored, name)
    }

    private func memoryEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let left = a.baseAddress, let right = b.baseAddress else { return a.count == 0 }
        return memcmp(left, right, a.count) == 0
    }

    private func gnuLookup(
        _ table: GNUHash, _ name: UnsafeRawBufferPointer, hash: UInt32,
        _ accept: (Int) -> Bool
    ) -> Int? {
        let bits = UInt32(table.wordSize * 8)
        let wordIndex = Int((hash / bits) % UInt32(table.bloomWords))
        guard let word = table.data.word(at: 16 + wordIndex * table.wordSize, is64: table.wordSize == 8) else {
            return nil
        }
        let mask: UInt64 = (1 << UInt64(hash % bits)) | (1 << UInt64((hash >> (table.bloomShift & 31)) % bits))
        guard word & mask == mask else { return nil }
        guard let start = table.data.u32(at: table.bucketsStart + Int(hash % UInt32(table.bucketCount)) * 4),
            start != 0, Int(start) >= table.symbolOffset
        else { return nil }
        var index = Int(start)
        while index < symbols.count {
            guard let chain = table.data.u32(at: table.chainsStart + (index - table.symbolOffset) * 4) else { break }
            if chain | 1 == hash | 1, matches(index, name), accept(index) { return index }
            if chain & 1 != 0 { break }
            index += 1
        }
        return nil
    }

    private func sysvLookup(
        _ table: SysVHash, _ name: UnsafeRawBufferPointer, hash: UInt32,
        _ accept: (Int) -> Bool
    ) -> Int? {
        guard let first = table.data.u32(at: 8 + Int(hash % UInt32(table.bucketCount)) * 4) else { return nil }
        var index = Int(first)
        var steps = 0
        while index != 0, index < table.chainCount, steps <= table.chainCount {
            if matches(index, name), accept(index) { return index }
            guard let next = table.data.u32(at: 8 + (table.bucketCount + index) * 4) else { break }
            index = Int(next)
            steps += 1
        }
        return nil
    }
}
