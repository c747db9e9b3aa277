import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// Bounds-checked reads of fixed-width integers from a byte buffer in the file's byte order.
///
/// Every read returns `nil` instead of trapping when it would leave the buffer.
public struct ByteReader {
    public let bytes: UnsafeRawBufferPointer
    public let bigEndian: Bool

    public init(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) {
        self.bytes = bytes
        self.bigEndian = bigEndian
    }

    public var count: Int { bytes.count }

    public func u8(at offset: Int) -> UInt8? {
        guard offset >= 0, offset < bytes.count else { return nil }
        return bytes[offset]
    }

    public func u16(at offset: Int) -> UInt16? { read(UInt16.self, at: offset) }
    public func u32(at offset: Int) -> UInt32? { read(UInt32.self, at: offset) }
    public func u64(at offset: Int) -> UInt64? { read(UInt64.self, at: offset) }

    /// A word of the file's class: 4 bytes for ELF32, 8 for ELF64.
    public func word(at offset: Int, is64: Bool) -> UInt64? {
        is64 ? u64(at: offset) : u32(at: offset).map(UInt64.init)
    }

    private func read<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
        let size = MemoryLayout<T>.size
        guard offset >= 0, offset <= bytes.count - size else { return nil }
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: T.self)
        return bigEndian ? T(bigEndian: raw) : T(littleEndian: raw)
    }

    /// The NUL-terminated string at `offset`, or `nil` when the offset is outside or no NUL
    /// ends it inside the buffer.
    public func cString(at offset: Int) -> String? {
        guard offset >= 0, offset < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let end = memchr(base + offset, 0, bytes.count - offset) else { return nil }
        let length = base.distance(to: UnsafeRawPointer(end)) - offset
        return String(decoding: UnsafeRawBufferPointer(start: base + offset, count: length), as: UTF8.self)
    }

    /// `cString(at:)` with every byte kept (`LosslessUTF8`): for names that become paths or are
    /// compared with file names (`DT_NEEDED`, `DT_SONAME`, `PT_INTERP`), where a byte that is
    /// not UTF-8 must not turn into U+FFFD.
    public func losslessString(at offset: Int) -> String? {
        guard offset >= 0, offset < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let end = memchr(base + offset, 0, bytes.count - offset) else { return nil }
        let length = base.distance(to: UnsafeRawPointer(end)) - offset
        return LosslessUTF8.string(UnsafeRawBufferPointer(start: base + offset, count: length))
    }
}
