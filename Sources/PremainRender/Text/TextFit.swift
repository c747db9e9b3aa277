import PremainModel

/// Makes names from binaries fit a width without cutting them in the middle: a path loses
/// leading directories ("…/linux/libswiftCore.so", then "libswiftCore.so"), a Swift name loses
/// its private discriminators, generic clauses, parameter types and result type; what is still
/// too wide is broken into lines at natural points (after "/", ".", ",", a space). A file name
/// and a function's base name are never cut.
public enum TextFit {
    /// How a text may be shortened.
    public enum Kind: Sendable, Equatable {
        /// A file path: leading directories may go.
        case path
        /// A demangled Swift (or C++) name: the parts `SwiftName.shorterForms` drops may go.
        case symbol
        /// Anything else: only wrapped.
        case plain
    }

    /// Columns no limit: `--wide`.
    public static let unlimited = Int.max

    /// The first form of `text` (longest first) that fits `width`, or the shortest form when
    /// none does (it is then wider than `width`; `lines` breaks it).
    public static func shorten(_ text: String, width: Int, kind: Kind) -> String {
        guard text.count > width else { return text }
        let forms: [String]
        switch kind {
        case .path: forms = pathForms(text)
        case .symbol: forms = SwiftName.shorterForms(text)
        case .plain: forms = [text]
        }
        return forms.first { $0.count <= width } ?? forms.last ?? text
    }

    /// `path` with fewer and fewer leading directories: "/a/b/c.so", "…/b/c.so", "c.so".
    static func pathForms(_ path: String) -> [String] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count > 1, let file = parts.last, !file.isEmpty else { return [path] }
        var forms = [path]
        for keep in stride(from: parts.count - 2, through: 1, by: -1) {
            forms.append("…/" + parts.suffix(keep + 1).joined(separator: "/"))
        }
        forms.append(String(file))
        return forms
    }

    /// `text` shortened as its kind allows, then broken into lines of at most `width`
    /// characters after "/", ",", ":" or a space (never inside a name such as "registry.cpp");
    /// a piece with no such point that is longer than `width` stands whole on its line.
    /// `[text]` when it fits.
    public static func lines(_ text: String, width: Int, kind: Kind) -> [String] {
        let short = shorten(text, width: width, kind: kind)
        guard short.count > width, width > 0 else { return [short] }
        var pieces: [String] = []
        var current = ""
        for character in short {
            current.append(character)
            if "/,: ".contains(character) {
                pieces.append(current)
                current = ""
            }
        }
        if !current.isEmpty { pieces.append(current) }
        var lines: [String] = []
        var line = ""
        for piece in pieces {
            if !line.isEmpty && line.count + piece.count > width {
                lines.append(line.trailingSpacesRemoved)
                line = ""
            }
            line += line.isEmpty ? String(piece.drop { $0 == " " }) : piece
        }
        if !line.isEmpty { lines.append(line.trailingSpacesRemoved) }
        return lines.isEmpty ? [short] : lines
    }
}
