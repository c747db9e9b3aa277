import LosslessText
import PremainRender
import Testing

/// Names that are not UTF-8 survive decoding, go back to the same bytes, and show as `\xNN`.
@Suite struct LosslessUTF8Tests {
    static let cases: [[UInt8]] = [
        Array("libz.so.1".utf8),
        Array("caf\u{E9}/\u{1F600}".utf8),
        [0x6C, 0x69, 0x62, 0xFF, 0x2E, 0x73, 0x6F],  // lib\xff.so
        [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98],  // truncated sequences
        [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],  // overlong, surrogate, > U+10FFFF
        [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x8F, 0xBE, 0x80],  // valid U+10FFFF, U+10FF80: the escapes' own range
        Array(0x80...0xFF),
    ]

    @Test func bytesRoundTrip() {
        for bytes in Self.cases {
            let text = LosslessUTF8.string(bytes)
            #expect(LosslessUTF8.bytes(text) == bytes, "\(bytes)")
            let cString = LosslessUTF8.withCString(text) { pointer in
                Array(UnsafeBufferPointer(start: pointer, count: bytes.count + 1)).map { UInt8(bitPattern: $0) }
            }
            #expect(cString == bytes + [0])
        }
    }

    @Test func differentBytesAreDifferentText() {
        let texts = Self.cases.map { LosslessUTF8.string($0) }
        #expect(Set(texts.map(ByteKey.init)).count == texts.count)
        #expect(LosslessUTF8.string([0xFF]) != LosslessUTF8.string([0xFE]))
        // A valid U+10FFFF is not the escape of byte 0xFF.
        #expect(LosslessUTF8.string([0xF4, 0x8F, 0xBF, 0xBF]) != LosslessUTF8.string([0xFF]))
    }

    @Test func validUTF8IsUnchanged() {
        #expect(LosslessUTF8.string(Array("caf\u{E9}".utf8)) == "caf\u{E9}")
        #expect(!LosslessUTF8.containsRawBytes("caf\u{E9} \u{1F600}"))
    }

    @Test func rawBytesShowEscaped() {
        let text = LosslessUTF8.string([0x6C, 0x69, 0x62, 0xFF, 0x62, 0x61, 0x64])
        #expect(TextSafety.display(text) == "lib\\xffbad")
        #expect(HTMLEscape.text(text) == "lib\\xffbad")
    }

    /// `String`'s `==` is canonical equivalence; file names compare as bytes.
    @Test func byteKeyTellsCanonicallyEquivalentNamesApart() {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        #expect(ByteKey(composed) != ByteKey(decomposed))
        #expect(ByteKey(composed) == ByteKey("caf\u{E9}"))
        #expect(Set([ByteKey(composed), ByteKey(decomposed)]).count == 2)
    }
}
