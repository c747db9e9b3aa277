import PremainModel

/// Aligned plain-text columns for the text renderers. Pure: rows in, lines out.
public struct TextTable {
    public enum Alignment: Sendable { case left, right }

    public var headers: [String]
    public var alignments: [Alignment]
    public var rows: [[String]] = []
    /// Leading spaces on every line.
    public var indent: Int
    /// Total width the table may use; the widest left-aligned column is shortened to fit.
    public var maxWidth: Int

    public init(headers: [String], alignments: [Alignment], indent: Int = 2, maxWidth: Int = 100) {
        self.headers = headers
        self.alignments = alignments
        self.indent = indent
        self.maxWidth = maxWidth
    }

    public mutating func add(_ row: [String]) { rows.append(row.map(TextSafety.display)) }

    public func render() -> String {
        let columns = headers.count
        var widths = (0..<columns).map { column in
            ([headers] + rows).map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        let used = indent + widths.reduce(0, +) + 2 * max(columns - 1, 0)
        if used > maxWidth, let widest = (0..<columns).filter({ alignments[$0] == .left })
            .max(by: { widths[$0] < widths[$1] }) {
            widths[widest] = max(12, widths[widest] - (used - maxWidth))
        }
        var lines: [String] = []
        for (rowIndex, row) in ([headers] + rows).enumerated() {
            if rowIndex == 0 && headers.allSatisfy(\.isEmpty) { continue }
            var cells: [String] = []
            for column in 0..<columns {
                let text = TextSafety.fit(row.indices.contains(column) ? row[column] : "", width: widths[column])
                let padding = String(repeating: " ", count: max(0, widths[column] - text.count))
                let isLast = column == columns - 1
                switch alignments[column] {
                case .left: cells.append(isLast ? text : text + padding)
                case .right: cells.append(padding + text)
                }
            }
            lines.append(String(repeating: " ", count: indent) + cells.joined(separator: "  "))
        }
        return lines.map { $0.trailingSpacesRemoved }.joined(separator: "\n") + "\n"
    }
}

/// Makes strings from binaries safe to show on a terminal and short enough to fit.
public enum TextSafety {
    /// Replaces control characters (which could move the cursor or recolour the terminal)
    /// with visible `\xNN` escapes.
    public static func display(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let code = String(scalar.value, radix: 16)
                result += "\\x" + (code.count < 2 ? "0" + code : code)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (scalar.value >= 0x7f && scalar.value < 0xa0)
    }

    /// `text` shortened in the middle with "…" to at most `width` characters.
    public static func fit(_ text: String, width: Int) -> String {
        guard text.count > width, width > 3 else { return text }
        let keep = width - 1
        let head = keep * 2 / 3
        return String(text.prefix(head)) + "…" + String(text.suffix(keep - head))
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}

/// Human byte sizes: "912 B", "14.2 KiB", "3.1 MiB".
public func formatBytes(_ value: UInt64) -> String {
    if value < 1024 { return "\(value) B" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var size = Double(value) / 1024
    var unit = 0
    while size >= 1024 && unit < units.count - 1 {
        size /= 1024
        unit += 1
    }
    return formatFixed(size, digits: size < 10 ? 1 : 0) + " " + units[unit]
}

/// A fixed-point decimal without Foundation's formatters: `formatFixed(3.14159, digits: 2)`
/// is "3.14".
public func formatFixed(_ value: Double, digits: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    guard abs(value) < 1e15 else { return String(value) }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (abs(value) * scale).rounded()
    let sign = value < 0 && rounded != 0 ? "-" : ""
    let whole = Int64(rounded / scale)
    guard digits > 0 else { return sign + String(whole) }
    var fraction = String(Int64(rounded) - whole * Int64(scale))
    while fraction.count < digits { fraction = "0" + fraction }
    return sign + String(whole) + "." + fraction
}
