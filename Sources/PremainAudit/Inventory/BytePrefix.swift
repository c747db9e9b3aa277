#if canImport(Glibc)
    import Glibc
#endif

extension String {
    /// Whether the UTF-8 bytes of this string start with the bytes of `prefix`: one `memcmp` of
    /// the contiguous bytes, where `hasPrefix` compares `Character`s and the generic
    /// `utf8.starts(with:)` walks both (several hundred instructions per symbol name).
    ///
    /// Used to reject names before `hasPrefix`: a string that `hasPrefix` an ASCII prefix
    /// always starts with its bytes (no other spelling of an ASCII character is canonically
    /// equal to it but the Kelvin sign's "K", U+037E's ";" and U+1FEF's "`", which no prefix
    /// here holds), though not the other way round ("._\u{301}" starts with "._" but its second
    /// `Character` is not "_").
    @inline(__always)
    func utf8HasPrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard utf8.count >= count else { return false }
        let start = prefix.utf8Start
        if let answer = utf8.withContiguousStorageIfAvailable({ bytes -> Bool in
            guard let base = bytes.baseAddress else { return count == 0 }
            return memcmp(base, start, count) == 0
        }) {
            return answer
        }
        return utf8.starts(with: UnsafeBufferPointer(start: start, count: count))
    }
}
