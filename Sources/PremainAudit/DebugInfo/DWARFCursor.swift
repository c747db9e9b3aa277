import ELFKit

#if canImport(Glibc)
    import Glibc
#endif

/// A read position in a DWARF section that never leaves `[position, end)`: every read returns
/// `nil` (and does not move) when the bytes are not there.
struct DWARFCursor {
    let reader: ByteReader
    var position: Int
    /// Reads stop here (the end of the current unit, at most the section's end).
    var end: Int {
        didSet { end = min(max(end, 0), reader.count) }
    }
    private let base: UnsafeRawPointer?

    init(_ reader: ByteReader, at position: Int) {
        self.reader = reader
        self.position = position
        self.end = reader.count
        self.base = reader.bytes.baseAddress
    }

    var remaining: Int { max(end - position, 0) }

    func peek() -> UInt8? {
        guard position >= 0, position < end, let base else { return nil }
        return base.load(fromByteOffset: position, as: UInt8.self)
    }

    mutating func u8() -> UInt8? {
        guard let value = peek() else { return nil }
        position += 1
        return value
    }

    mutating func u16() -> UInt16? { read(UInt16.self) }
    mutating func u32() -> UInt32? { read(UInt32.self) }
    mutating func u64() -> UInt64? { read(UInt64.self) }

    /// An offset or address of `size` bytes (4 or 8).
    mutating func offset(size: Int) -> UInt64? { size == 8 ? u64() : u32().map(UInt64.init) }

    private mutating func read<T: FixedWidthInteger>(_: T.Type) -> T? {
        guard position >= 0, remaining >= MemoryLayout<T>.size, let base else { return nil }
        let raw = base.loadUnaligned(fromByteOffset: position, as: T.self)
        position += MemoryLayout<T>.size
        return reader.bigEndian ? T(bigEndian: raw) : T(littleEndian: raw)
    }

    /// Moves `count` bytes on; `false` (not moved) when fewer are left or `count` is negative.
    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        position += count
        return true
    }

    /// Skips a NUL-terminated string and returns where it started; `nil` when no NUL ends it
    /// before `end`.
    mutating func skipString() -> Int? {
        guard position >= 0, position < end, let base,
            let nul = memchr(base + position, 0, end - position)
        else { return nil }
        let start = position
        position = base.distance(to: UnsafeRawPointer(nul)) + 1
        return start
    }

    /// Unsigned LEB128 of at most 9 bytes (63 bits); `nil` (not moved) when it is longer or
    /// runs past `end`. libdw reads longer ones differently, so they are refused, not guessed.
    mutating func uleb() -> UInt64? { leb(limit: 9)?.value }

    /// Signed LEB128 of at most 8 bytes; `nil` (not moved) when longer or past `end`.
    mutating func sleb() -> Int64? {
        guard let (value, bits, last) = leb(limit: 8) else { return nil }
        return Int64(bitPattern: last & 0x40 != 0 ? value | ~0 << bits : value)
    }

    /// The bits of a LEB128 number of at most `limit` bytes, how many bits it has, and its last
    /// byte; `nil` (not moved) when it is longer or runs past `end`.
    @inline(__always)
    private mutating func leb(limit: Int) -> (value: UInt64, bits: UInt64, last: UInt8)? {
        guard position >= 0, let base else { return nil }
        var value: UInt64 = 0
        var at = position
        for step in 0..<limit {
            guard at < end else { return nil }
            let byte = base.load(fromByteOffset: at, as: UInt8.self)
            at += 1
            value |= UInt64(byte & 0x7f) << UInt64(7 * step)
            if byte & 0x80 == 0 {
                position = at
                return (value, UInt64(7 * (step + 1)), byte)
            }
        }
        return nil
    }

    /// The value of an unsigned constant form (`DW_FORM_data1`, `data2`, `udata`) at the
    /// position, without moving; `nil` for other forms (which libdw may read otherwise).
    func unsignedValue(form: UInt16) -> UInt64? {
        var copy = self
        switch form {
        case DWARFForm.data1: return copy.u8().map(UInt64.init)
        case DWARFForm.data2: return copy.u16().map(UInt64.init)
        case DWARFForm.udata: return copy.uleb()
        default: return nil
        }
    }

    /// Skips a value of `form` in a line header (the forms libdw accepts there, less the
    /// `strx` and supplementary-file forms); `false` when it runs past `end` or the form is
    /// not one of them.
    mutating func skip(form: UInt16, offsetSize: Int) -> Bool {
        switch form {
        case DWARFForm.data1, DWARFForm.flag: return skip(1)
        case DWARFForm.data2: return skip(2)
        case DWARFForm.data4: return skip(4)
        case DWARFForm.data8: return skip(8)
        case DWARFForm.data16: return skip(16)
        case DWARFForm.strp, DWARFForm.lineStrp, DWARFForm.secOffset: return skip(offsetSize)
        case DWARFForm.udata: return uleb() != nil
        case DWARFForm.sdata: return sleb() != nil
        case DWARFForm.string: return skipString() != nil
        case DWARFForm.block1: return u8().map { skip(Int($0)) } ?? false
        case DWARFForm.block2: return u16().map { skip(Int($0)) } ?? false
        case DWARFForm.block4: return u32().map { skip(Int($0)) } ?? false
        case DWARFForm.block:
            let start = position
            guard let length = uleb(), length <= UInt64(remaining) else {
                position = start
                return false
            }
            return skip(Int(length))
        default: return false
        }
    }
}

/// `DW_FORM_*` codes read in line headers (DWARF 5, 7.5.6).
enum DWARFForm {
    static let block2: UInt16 = 0x03, block4: UInt16 = 0x04, data2: UInt16 = 0x05, data4: UInt16 = 0x06
    static let data8: UInt16 = 0x07, string: UInt16 = 0x08, block: UInt16 = 0x09, block1: UInt16 = 0x0a
    static let data1: UInt16 = 0x0b, flag: UInt16 = 0x0c, sdata: UInt16 = 0x0d, strp: UInt16 = 0x0e
    static let udata: UInt16 = 0x0f, secOffset: UInt16 = 0x17, strx: UInt16 = 0x1a, strpSup: UInt16 = 0x1d
    static let data16: UInt16 = 0x1e, lineStrp: UInt16 = 0x1f, strx1: UInt16 = 0x25, strx2: UInt16 = 0x26
    static let strx3: UInt16 = 0x27, strx4: UInt16 = 0x28

    /// The forms libdw 0.188 accepts in a line header's entry formats (`libdw_valid_user_form`);
    /// any other makes it refuse the unit.
    static func isValidLineForm(_ form: UInt16) -> Bool {
        [
            block, block1, block2, block4, data1, data2, data4, data8, data16, flag, lineStrp, sdata, secOffset,
            string, strp, strpSup, strx, strx1, strx2, strx3, strx4, udata,
        ].contains(form)
    }
}
