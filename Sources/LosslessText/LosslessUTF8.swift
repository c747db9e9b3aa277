/// Bytes that are meant as text but need not be UTF-8 — file names, `DT_NEEDED` names,
/// `argv` — carried in a `String` without losing a byte (Python's `surrogateescape`, with
/// private-use scalars where Swift has no lone surrogates).
///
/// Valid UTF-8 decodes as usual. A byte that is not part of a valid sequence becomes the
/// scalar U+10FF00 + byte (U+10FF80–U+10FFFF, the last 128 scalars of plane 16); the bytes of a
/// valid sequence that itself encodes one of those scalars are escaped the same way, one
/// scalar per byte, so that no two byte strings decode to the same `String`. `bytes(_:)` turns
/// every such scalar back into its byte. A path decoded here reaches a system call only
/// through `withCString`; a reader sees the bytes as `\xNN` (`TextSafety.display`).
public enum LosslessUTF8 {
    /// The scalar of raw byte `b` is `rawBase + b`.
    static let rawBase: UInt32 = 0x10FF00
    /// The first two UTF-8 bytes of every raw-byte scalar.
    static let rawLead: (UInt8, UInt8) = (0xF4, 0x8F)

    /// The byte `scalar` stands for, or `nil` when it is an ordinary scalar.
    @inlinable
    public static func rawByte(_ scalar: Unicode.Scalar) -> UInt8? {
        scalar.value >= 0x10FF80 ? UInt8(truncatingIfNeeded: scalar.value - 0x10FF00) : nil
    }

    /// The byte that the four UTF-8 bytes `b0 b1 b2 b3` of one scalar stand for, or `nil` when
    /// they are not a raw-byte scalar (for writers that work on the UTF-8 of a `String`).
    @inlinable
    public static func rawByte(utf8 b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) -> UInt8? {
        guard b0 == 0xF4, b1 == 0x8F, b2 == 0xBE || b2 == 0xBF, b3 & 0xC0 == 0x80 else { return nil }
        return 0x80 | (b2 == 0xBF ? 0x40 : 0) | (b3 & 0x3F)
    }

    /// `true` when `text` carries a raw byte (and so differs from its own UTF-8).
    public static func containsRawBytes(_ text: String) -> Bool {
        // Every raw-byte scalar starts with 0xF4; ordinary text almost never has one.
        hasLeadByte(text) && text.unicodeScalars.contains { rawByte($0) != nil }
    }

    /// `true` when the UTF-8 of `text` has a 0xF4 byte, scanned on its contiguous storage (a
    /// search through `String.UTF8View`'s iterator costs about a hundred instructions a byte).
    private static func hasLeadByte(_ text: String) -> Bool {
        let found = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte == 0xF4 { return true }
            return false
        }
        return found ?? text.utf8.contains(0xF4)
    }

    /// `bytes` as text, losslessly (see the type).
    public static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            if length == 0 {
                scalars.append(raw(bytes[index]))
                index += 1
                continue
            }
            let sequence = UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)])
            let decoded = String(decoding: sequence, as: UTF8.self).unicodeScalars
            if length == 4, let first = decoded.first, rawByte(first) != nil {
                for byte in sequence { scalars.append(raw(byte)) }
            } else {
                scalars.append(contentsOf: decoded)
            }
            index += length
        }
        return String(scalars)
    }

    /// `bytes` as text, losslessly.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        Array(bytes).withUnsafeBytes { string($0) }
    }

    /// The NUL-terminated `cString` as text, losslessly.
    public static func string(cString: UnsafePointer<CChar>) -> String {
        var length = 0
        while cString[length] != 0 { length += 1 }
        return string(UnsafeRawBufferPointer(start: cString, count: length))
    }

    /// The bytes `text` stands for: its UTF-8, with each raw-byte scalar back to its byte.
    public static func bytes(_ text: String) -> [UInt8] {
        guard containsRawBytes(text) else { return Array(text.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let byte = rawByte(scalar) {
                out.append(byte)
            } else {
                UTF8.encode(scalar) { out.append($0) }
            }
        }
        return out
    }

    /// Calls `body` with the bytes `text` stands for as a NUL-terminated C string: the way a
    /// decoded path goes back to `open`, `stat` and `opendir`.
    public static func withCString<R>(_ text: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        guard containsRawBytes(text) else { return try text.withCString(body) }
        let terminated = bytes(text).map { CChar(bitPattern: $0) } + [0]
        return try terminated.withUnsafeBufferPointer { buffer in
            // A non-empty array always has storage.
            guard let base = buffer.baseAddress else { return try "".withCString(body) }
            return try body(base)
        }
    }

    private static func raw(_ byte: UInt8) -> Unicode.Scalar {
        // U+10FF80...U+10FFFF are valid scalars, so the fallback is never taken.
        Unicode.Scalar(rawBase + UInt32(byte)) ?? "\u{FFFD}"
    }

    /// The length of the well-formed UTF-8 sequence at `index` (Unicode Table 3-7), or 0.
    private static func validSequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int {
        let lead = bytes[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xE1...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }
}

/// A `String` compared and hashed by its bytes, as C's `strcmp` compares names: `String`'s `==`
/// is canonical equivalence (a precomposed "é" equals "e" and U+0301), under which two file
/// names that the kernel and `ld.so` tell apart would be one. For dictionary keys.
public struct ByteKey: Hashable, Sendable, CustomStringConvertible {
    public var text: String

    public init(_ text: String) { self.text = text }

    public var description: String { text }

    public static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        let left = lhs.text.utf8
        let right = rhs.text.utf8
        guard left.count == right.count else { return false }
        // Word by word on the contiguous storage: the generic `elementsEqual` costs several
        // hundred instructions per comparison of two short names.
        let fast = left.withContiguousStorageIfAvailable { a in
            right.withContiguousStorageIfAvailable { b in
                Self.equal(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b))
            }
        }
        if case let equal?? = fast { return equal }
        return left.elementsEqual(right)
    }

    /// `true` when `a` and `b` (of one length) hold the same bytes.
    private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard let x = a.baseAddress, let y = b.baseAddress else { return a.count == b.count }
        var offset = 0
        while offset + 8 <= a.count {
            if x.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != y.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        while offset < a.count {
            if x.load(fromByteOffset: offset, as: UInt8.self) != y.load(fromByteOffset: offset, as: UInt8.self) {
                return false
            }
            offset += 1
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        let bytes = text.utf8
        if bytes.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}
