import PremainModel

/// Dynamic string tokens in `DT_RPATH`, `DT_RUNPATH` and `DT_NEEDED` (glibc `elf/dl-load.c`,
/// `_dl_dst_substitute`): `$ORIGIN`, `$LIB`, `$PLATFORM`, each also written `${NAME}`.
///
/// A bare token ends where the next character is not a letter, digit or underscore. Unknown
/// `$NAME`s are kept as written, like glibc does.
public enum DynamicStringTokens {
    /// `text` with every token replaced, or `nil` when it uses `$ORIGIN` and `origin` is
    /// unknown (glibc then drops the search-path element).
    public static func expand(_ text: String, origin: String?, lib: String, platform: String) -> String? {
        guard text.contains("$") else { return text }
        let chars = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(chars.count + 32)
        var index = 0
        while index < chars.count {
            guard chars[index] == UInt8(ascii: "$") else {
                out.append(chars[index])
                index += 1
                continue
            }
            var matched = false
            for (name, value) in [("ORIGIN", origin), ("PLATFORM", Optional(platform)), ("LIB", Optional(lib))] {
                guard let length = tokenLength(chars, at: index + 1, name: name) else { continue }
                guard let value else { return nil }
                out.append(contentsOf: Array(value.utf8))
                index += 1 + length
                matched = true
                break
            }
            if !matched {
                out.append(chars[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes the token `name` takes at `start` (after the `$`), or `nil` when it is not there.
    static func tokenLength(_ chars: [UInt8], at start: Int, name: String) -> Int? {
        let token = Array(name.utf8)
        if start < chars.count, chars[start] == UInt8(ascii: "{") {
            let end = start + 1 + token.count
            guard end < chars.count, Array(chars[(start + 1)..<end]) == token,
                  chars[end] == UInt8(ascii: "}") else { return nil }
            return token.count + 2
        }
        let end = start + token.count
        guard end <= chars.count, Array(chars[start..<end]) == token else { return nil }
        if end < chars.count {
            let next = chars[end]
            let isWord = (next >= 0x30 && next <= 0x39) || (next >= 0x41 && next <= 0x5a)
                || (next >= 0x61 && next <= 0x7a) || next == 0x5f
            if isWord { return nil }
        }
        return token.count
    }
}
