/// Hex digits read from bytes, a few instructions a digit: for parsers that have the bytes at
/// hand (a record line, a callgrind file, an address premain wrote) and would otherwise make a
/// `Substring` for `UInt64(_:radix:)`.
public enum HexDigits {
    /// The value of `bytes`, each a hex digit of either case; `nil` when one is not, or when
    /// there are more than 16 (`0` for none).
    @inlinable
    public static func value<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64? {
        guard bytes.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
