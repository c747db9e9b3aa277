import PremainModel

/// Aligned plain-text columns for the text renderers. Pure: rows in, lines out.
///
/// When the rows are wider than `maxWidth`, the widest left-aligned column gives way: its
/// cells are shortened as their kind allows (`TextFit`), and what is still too wide continues
/// on the next lines in the same column, or, in the last column, runs past the width. No cell
/// is cut in the middle.
public struct TextTable {
    public enum Alignment: Sendable { case left, right }

    public var headers: [String]
    public var alignments: [Alignment]
    /// How each column's cells may be shortened; `.plain` for columns not listed.
    public var kinds: [TextFit.Kind]
    public var rows: [[String]] = []
    /// Leading spaces on every line.
    public var indent: Int
    /// Total width the table may use (`TextFit.unlimited`: any).
    public var maxWidth: Int

    public init(
        headers: [String], alignments: [Alignment], kinds: [TextFit.Kind] = [], indent: Int = 2,
        maxWidth: Int = 100
    ) {
        self.headers = headers
        self.alignments = alignments
        self.kinds = kinds
        self.indent = indent
        self.maxWidth = maxWidth
    }

    /// Lines printed under each row, as they are (a stacked layout's long name); by row index.
    public var below: [Int: [String]] = [:]

    public mutating func add(_ row: [String]) { rows.append(row.map(TextSafety.display)) }

    /// A row, and `lines` under it (already fitted by the caller).
    public mutating func add(_ row: [String], below lines: [String]) {
        below[rows.count] = lines.map(TextSafety.display)
        add(row)
    }

    public func render() -> String {
        let columns = headers.count
        func cell(_ row: [String], _ column: Int) -> String { row.indices.contains(column) ? row[column] : "" }
        var body = rows
        var widths = (0..<columns).map { column in ([headers] + body).map { cell($0, column).count }.max() ?? 0 }
        let used = indent + widths.reduce(0, +) + 2 * max(columns - 1, 0)
        var wrapped: Int?
        if used > maxWidth,
            let widest = (0..<columns).filter({ alignments[$0] == .left })
                .max(by: { widths[$0] < widths[$1] })
        {
            let room = max(12, widths[widest] - (used - maxWidth))
            let kind = kinds.indices.contains(widest) ? kinds[widest] : .plain
            body = body.map { row in
                var row = row
                if row.indices.contains(widest) { row[widest] = TextFit.shorten(row[widest], width: room, kind: kind) }
                return row
            }
            // A piece that cannot be broken (a file name) widens the column rather than overflow it.
            let longestLine =
                body.flatMap { TextFit.lines(cell($0, widest), width: room, kind: .plain) }.map(\.count).max() ?? 0
            widths[widest] = max(headers[widest].count, widest == columns - 1 ? min(longestLine, room) : longestLine)
            wrapped = widest
        }
        var lines: [String] = []
        for (rowIndex, row) in ([headers] + body).enumerated() {
            if rowIndex == 0 && headers.allSatisfy(\.isEmpty) { continue }
            // The wrapped column's cell may take several lines; the other cells sit on the first.
            var parts = [row]
            if let wrapped, wrapped < columns - 1, rowIndex > 0 {
                let pieces = TextFit.lines(cell(row, wrapped), width: widths[wrapped], kind: .plain)
                parts = pieces.enumerated().map { index, piece in
                    var line = index == 0 ? row : [String](repeating: "", count: columns)
                    if line.indices.contains(wrapped) { line[wrapped] = piece }
                    return line
                }
            }
            for part in parts {
                var cells: [String] = []
                for column in 0..<columns {
                    let text = cell(part, column)
                    let padding = String(repeating: " ", count: max(0, widths[column] - text.count))
                    let isLast = column == columns - 1
                    switch alignments[column] {
                    case .left: cells.append(isLast ? text : text + padding)
                    case .right: cells.append(padding + text)
                    }
                }
                lines.append(String(repeating: " ", count: indent) + cells.joined(separator: "  "))
            }
            if rowIndex > 0 { lines += below[rowIndex - 1] ?? [] }
        }
        return lines.map { $0.trailingSpacesRemoved }.joined(separator: "\n") + "\n"
    }
}

extension String {
    var trailingSpacesRemoved: String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}

/// Human byte sizes: "912 B", "14.2 KiB", "3.1 MiB"; one decimal below 10 of a unit, none
/// above, unless `decimals` says how many (a change of a few hundred bytes still shows with 1).
public func formatBytes(_ value: UInt64, decimals: Int? = nil, separator: String = " ") -> String {
    if value < 1024 { return "\(value)\(separator)B" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var size = Double(value) / 1024
    var unit = 0
    while size >= 1024 && unit < units.count - 1 {
        size /= 1024
        unit += 1
    }
    return formatFixed(size, digits: decimals ?? (size < 10 ? 1 : 0)) + separator + units[unit]
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
