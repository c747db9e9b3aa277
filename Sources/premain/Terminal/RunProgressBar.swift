#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar of launches on stderr, drawn only when stderr is a terminal.
struct RunProgressBar {
    let enabled: Bool
    private var lastDrawn = -1

    init(enabled: Bool = Console.isTerminal(2)) {
        self.enabled = enabled
    }

    /// Redraws `done` of `total` with a label; cheap when nothing visible changed.
    mutating func update(done: Int, total: Int, label: String) {
        guard enabled, total > 0 else { return }
        let width = 30
        let filled = min(width, done * width / total)
        guard filled != lastDrawn || done == total else { return }
        lastDrawn = filled
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        Console.err("\r\u{1B}[2K[\(bar)] \(done)/\(total) \(label)")
    }

    /// Clears the line.
    func finish() {
        guard enabled else { return }
        Console.err("\r\u{1B}[2K")
    }
}
