import LosslessText
import PremainModel

/// Makes text from binaries (symbols, paths, sonames, messages that quote them) safe inside
/// a GitHub comment: it renders as the same characters and cannot start Markdown syntax,
/// inject HTML, @-mention people or teams, link issues, or break a table.
public enum MarkdownEscape {
    /// Longest text shown for one name; longer names are cut with "…".
    public static let maxLength = 300

    /// Escaped text for a paragraph or a table cell.
    public static func text(_ raw: String, limit: Int = maxLength) -> String {
        var out = ""
        var count = 0
        let characters = Array(raw)
        for (index, character) in characters.enumerated() {
            if count >= limit {
                out += "…"
                break
            }
            count += 1
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "|": out += "&#124;"
            case ":":
                out += "\\:"
                // "scheme://" would autolink; a zero-width joiner after the colon prevents it.
                if index + 1 < characters.count, characters[index + 1] == "/" { out += "\u{200D}" }
            case "\\", "`", "*", "_", "{", "}", "[", "]", "(", ")", "#", "+", "-", "!", "~", "=", "$", "^":
                out += "\\" + String(character)
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
                if character.unicodeScalars.contains(where: TextSafety.isUnsafe) {
                    // Controls and bidirectional marks (Trojan Source; TextSafety.isUnsafe) shown as code points.
                    for scalar in character.unicodeScalars {
                        if let byte = LosslessUTF8.rawByte(scalar) {
                            // A byte of a name that is not UTF-8, as text shows it (`\xff`).
                            out += "\\\\x" + String(byte, radix: 16)
                        } else if TextSafety.isUnsafe(scalar) {
                            out += "U+" + String(scalar.value, radix: 16, uppercase: true)
                        } else {
                            out.unicodeScalars.append(scalar)
                        }
                    }
                } else {
                    out.append(character)
                }
            }
        }
        return out
    }

    /// Text for inside a code span (`` `…` ``), table cells included: a backtick cannot end the
    /// span (it becomes ˋ), a pipe cannot end the cell (`\|`, which GitHub's tables read inside
    /// code too), line breaks become spaces and controls and bidirectional marks code points;
    /// cut with "…" after `limit` characters. Markdown and HTML are not read inside code.
    public static func code(_ raw: String, limit: Int = maxLength) -> String {
        var out = ""
        for (count, character) in raw.enumerated() {
            if count >= limit {
                out += "…"
                break
            }
            switch character {
            case "`": out += "ˋ"
            case "|": out += "\\|"
            case "\n", "\r", "\t", "\u{2028}", "\u{2029}": out += " "
            default:
                if character.unicodeScalars.contains(where: TextSafety.isUnsafe) {
                    for scalar in character.unicodeScalars {
                        if TextSafety.isUnsafe(scalar) {
                            out += "U+" + String(scalar.value, radix: 16, uppercase: true)
                        } else {
                            out.unicodeScalars.append(scalar)
                        }
                    }
                } else {
                    out.append(character)
                }
            }
        }
        return out.isEmpty ? " " : out
    }

    /// Escaped text for a Mermaid label: only letters, digits and `._+/ -` survive; every
    /// other character becomes `_`, so no name can end a task or start a directive.
    public static func mermaid(_ raw: String, limit: Int = 60) -> String {
        var out = ""
        for character in raw.prefix(limit) {
            if character.isASCII, character.isLetter || character.isNumber || "._+/ -".contains(character) {
                out.append(character)
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
