/// Makes text from binaries, reports and the command line safe inside HTML text and quoted
/// attribute values (SVG included): `&`, `<`, `>`, `"` and `'` become character references,
/// control characters visible `\xNN` escapes. Nothing passed through it can open a tag, close
/// an attribute or start a reference.
public enum HTMLEscape {
    public static func text(_ raw: String) -> String {
        var out = ""
        out.reserveCapacity(raw.utf8.count)
        for scalar in TextSafety.display(raw).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `text` for a tooltip (an SVG `<title>`): its line breaks stay line breaks, which browsers
    /// show as such, instead of a literal `\x0a`; other control characters are escaped as in `text`.
    public static func tooltip(_ raw: String) -> String {
        raw.split(separator: "\n", omittingEmptySubsequences: false).map { text(String($0)) }.joined(separator: "\n")
    }

    /// `text`, cut to `limit` characters with "…" (labels inside a chart).
    public static func label(_ raw: String, limit: Int) -> String {
        let characters = Array(TextSafety.display(raw))
        guard characters.count > limit, limit > 1 else { return text(raw) }
        return text(String(characters.prefix(limit - 1))) + "…"
    }
}
