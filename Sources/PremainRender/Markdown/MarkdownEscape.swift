import LosslessText
import PremainModel

/// Makes text from binaries (symbols, paths, sonames, messages that quote them) safe inside
/// a GitHub comment: it renders as the same characters and cannot start Markdown syntax,
/// inject HTML, @-mention people or teams, link issues, or break a table.
public enum MarkdownEscape {
    /// Longest text shown for one name; longer names are cut with "…".
    public static let maxLength = 300

    /// Escaped text for a paragraph or a table cell, cut with "…" after `limit` scalars. Escapes are decided per Unicode scalar,
    /// never per character: a `|`, `\\` or `"` followed by a combining mark (U+0301) is one
    /// grapheme cluster, and so is `\r\n`, yet cmark-gfm reads the `|` and the line break.
    public static func text(_ raw: String, limit: Int = maxLength) -> String {
        var out = ""
        let scalars = Array(raw.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            if index >= limit {
                out += "…"
                break
            }
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "|": out += "&#124;"
            case ":":
                out += "\\:"
                // "scheme://" would autolink; a zero-width joiner after the colon prevents it.
                if index + 1 < scalars.count, scalars[index + 1] == "/" { out += "\u{200D}" }
            case "\\", "`", "*", "_", "{", "}", "[", "]", "(", ")", "#", "+", "-", "!", "~", "=", "$", "^":
                out += "\\"
                out.unicodeScalars.append(scalar)
            case "@":
                // A zero-width joiner after @ keeps GitHub from reading a mention.
                out += "@\u{200D}"
            case ".":
                // "www.example.com" would autolink; a zero-width joiner after "www" prevents it.
                if out.hasSuffix("www") || out.hasSuffix("WWW") { out += "\u{200D}" }
                out += "."
            case "\n", "\r", "\t", "\u{2028}", "\u{2029}":
                out += " "
            default:
                if let byte = LosslessUTF8.rawByte(scalar) {
                    // A byte of a name that is not UTF-8, as text shows it (`\xff`).
                    out += "\\\\x" + String(byte, radix: 16)
                } else if TextSafety.isUnsafe(scalar) {
                    // Controls and bidirectional marks (Trojan Source; TextSafety.isUnsafe) shown as code points.
                    out += "U+" + String(scalar.value, radix: 16, uppercase: true)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    /// Text for inside a code span (`` `…` ``), table cells included: a backtick cannot end the
    /// span (it becomes ˋ), a pipe cannot end the cell (`\|`, which GitHub's tables read inside
    /// code too), line breaks become spaces and controls and bidirectional marks code points;
    /// cut with "…" after `limit` scalars. Markdown and HTML are not read inside code. Per
    /// Unicode scalar, as `text`.
    public static func code(_ raw: String, limit: Int = maxLength) -> String {
        var out = ""
        for (count, scalar) in raw.unicodeScalars.enumerated() {
            if count >= limit {
                out += "…"
                break
            }
            switch scalar {
            case "`": out += "ˋ"
            case "|": out += "\\|"
            case "\n", "\r", "\t", "\u{2028}", "\u{2029}": out += " "
            default:
                if TextSafety.isUnsafe(scalar) {
                    out += "U+" + String(scalar.value, radix: 16, uppercase: true)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out.isEmpty ? " " : out
    }

    /// Escaped text for a Mermaid label: only letters, digits and `._+/ -` survive; every
    /// other character becomes `_`, so no name can end a task or start a directive.
    public static func mermaid(_ raw: String, limit: Int = 60) -> String {
        var out = ""
        for scalar in raw.unicodeScalars.prefix(limit) {
            if scalar.isASCII,
                Character(scalar).isLetter || Character(scalar).isNumber || "._+/ -".unicodeScalars.contains(scalar)
            {
                out.unicodeScalars.append(scalar)
            } else {
                out.append("_")
            }
        }
        return out.isEmpty ? "_" : out
    }

    /// `paragraphs` as one block quote, each its own paragraph (`> a`, `>`, `> b`): lines that
    /// follow each other in a quote would run into one paragraph under GitHub's Markdown.
    static func quoted(_ paragraphs: [String]) -> [String] {
        var lines: [String] = []
        for paragraph in paragraphs {
            if !lines.isEmpty { lines.append(">") }
            lines.append("> " + paragraph)
        }
        return lines
    }
}
