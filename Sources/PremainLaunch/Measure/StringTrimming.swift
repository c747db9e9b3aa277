import PremainAudit
import PremainModel

// Blank trimming without Foundation, for loader lines and /proc text.
extension String {
    /// Without leading and trailing spaces, tabs and newlines.
    func trimmedBlanks() -> String {
        String(Substring(self).trimmingBlanks())
    }
}

extension Substring {
    func trimmingBlanks() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }),
              let last = lastIndex(where: { !blank($0) }) else { return "" }
        return self[first...last]
    }
}
