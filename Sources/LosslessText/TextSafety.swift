/// The one place that decides which characters of untrusted text (symbol names, paths,
/// sonames, commands, messages that quote them) may reach a reader as they are. Every text
/// renderer and the CLI's messages use `display`; SARIF and GitHub annotations use
/// `plainText`; Markdown (`MarkdownEscape`) starts from the same `isUnsafe`.
public enum TextSafety {
    /// `true` for scalars that change how the text around them shows instead of showing
    /// themselves: C0 controls (ESC, BEL, newline, …), DEL, C1 controls, the line and paragraph
    /// separators, and the bidirectional marks, embeddings, overrides and isolates that can
    /// reorder what a reader sees (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069;
    /// "Trojan Source"); and the bytes of a name that are not UTF-8 (`LosslessUTF8`).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7f..<0xa0, 0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a...0x202e, 0x2066...0x2069,
            0x10FF80...0x10FFFF:
            return true
        default:
            return false
        }
    }

    /// `text` for a terminal: every unsafe scalar (see `isUnsafe`) becomes a visible escape,
    /// `\xNN` below U+0100 (`\x1b` for ESC, `\x0a` for a newline) and for a byte that is not
    /// UTF-8 (`\xff`), `\u{NNNN}` above.
    public static func display(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The visible escape of one scalar: `\x1b`, `\u{202E}`; `\xff` for the raw byte 0xFF.
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        if let byte = LosslessUTF8.rawByte(scalar) { return "\\x" + String(byte, radix: 16) }
        let code = String(scalar.value, radix: 16)
        if scalar.value < 0x100 { return "\\x" + (code.count < 2 ? "0" + code : code) }
        return "\\u{" + code.uppercased() + "}"
    }

    /// `text` for SARIF messages and logical locations and for GitHub annotations, which GitHub
    /// shows in pages and notifications: `display`, and a zero-width joiner after `@` (no
    /// mention of a person or team), `<` (no HTML tag) and `&` (no character reference).
    /// `keepingLineBreaks` leaves CR and LF for a sink that encodes them itself (a workflow
    /// command's `%0A`).
    public static func plainText(_ text: String, keepingLineBreaks: Bool = false) -> String {
        var shown = ""
        if keepingLineBreaks {
            for scalar in text.unicodeScalars {
                if scalar == "\n" || scalar == "\r" || !isUnsafe(scalar) {
                    shown.unicodeScalars.append(scalar)
                } else {
                    shown += escape(scalar)
                }
            }
        } else {
            shown = display(text)
        }
        guard shown.unicodeScalars.contains(where: { $0 == "@" || $0 == "<" || $0 == "&" }) else { return shown }
        var result = ""
        for scalar in shown.unicodeScalars {
            result.unicodeScalars.append(scalar)
            if scalar == "@" || scalar == "<" || scalar == "&" { result.unicodeScalars.append("\u{200D}") }
        }
        return result
    }
}
