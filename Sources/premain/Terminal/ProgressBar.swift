import PremainLaunch
import Synchronization

/// A one-line progress bar on stderr, drawn only when stderr is a terminal, at most once per
/// percent. Safe to call from worker threads.
final class ProgressBar: Sendable {
    private let label: String
    private let lastDrawn = Mutex<Int>(-1)

    /// `nil` when stderr is not a terminal.
    static func onTerminal(_ label: String) -> ProgressBar? {
        Console.isTerminal(2) && !Console.isQuiet ? ProgressBar(label) : nil
    }

    private init(_ label: String) { self.label = label }

    func update(_ done: Int, _ total: Int) {
        guard total > 0 else { return }
        let percent = min(100, done * 100 / total)
        let draw = lastDrawn.withLock { last -> Bool in
            guard percent != last else { return false }
            last = percent
            return true
        }
        guard draw else { return }
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        Console.err("\r\u{1B}[2K\(label) [\(bar)] \(done)/\(total)")
    }

    /// Draws how far a series of launches (`measure`, `trace`) has got.
    func update(_ progress: LaunchProgress) {
        if let phase = progress.phase {
            lastDrawn.withLock { $0 = -1 }
            Console.err("\r\u{1B}[2K\(label): \(phase)…")
            return
        }
        update(progress.completed, progress.total)
    }

    /// Clears the line.
    func finish() {
        Console.err("\r\u{1B}[2K")
    }
}
