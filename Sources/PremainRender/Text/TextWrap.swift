/// Greedy word wrapping for plain-text output and help text: the one wrapping rule of every
/// text renderer and of `--help`.
public enum TextWrap {
    /// `pieces` laid out in lines of at most `width` characters where they fit: the first line
    /// starts with `first`, every later one with `indent`; pieces are joined by one space, and
    /// a piece that would overflow starts a new line unless its line holds no piece yet (a
    /// piece longer than the width stands alone). Returns `[first]` when there are no pieces.
    public static func lines<S: StringProtocol>(
        _ pieces: [S], width: Int, first: String = "",
        indent: String = ""
    ) -> [String] {
        var lines: [String] = []
        var line = first
        var lineHasPiece = false
        for piece in pieces {
            if lineHasPiece && line.count + 1 + piece.count > width {
                lines.append(line)
                line = indent
                lineHasPiece = false
            }
            line += lineHasPiece ? " " + piece : String(piece)
            lineHasPiece = true
        }
        lines.append(line)
        return lines
    }

    /// `items` separated by commas after `label`, wrapped at `width`.
    public static func list(_ items: [String], width: Int, first: String, indent: String) -> [String] {
        lines(
            items.enumerated().map { $0.element + ($0.offset < items.count - 1 ? "," : "") },
            width: width, first: first, indent: indent)
    }
}
