import PremainAudit
import PremainLaunch
import PremainModel
import PremainRender
import Synchronization

/// A one-line progress display on stderr, drawn only when stderr is a terminal: a bar with the
/// time left where the total is known (`ProgressText`), else the step and what it has found.
/// Redrawn when the percentage changes, at most ten times a second otherwise. Safe to call from
/// worker threads.
final class ProgressBar: Sendable {
    private let label: String

    private struct State {
        /// What is being counted: a new step restarts the clock of the time left.
        var step = ""
        var stepStart = ContinuousClock.now
        var lastPercent = -1
        var lastDrawn: ContinuousClock.Instant?
    }

    private let state = Mutex(State())

    /// `nil` when stderr is not a terminal.
    static func onTerminal(_ label: String) -> ProgressBar? {
        Console.isTerminal(2) && !Console.isQuiet ? ProgressBar(label) : nil
    }

    private init(_ label: String) { self.label = label }

    func update(_ done: Int, _ total: Int) { update(step: "", done, total) }

    /// Draws how far `step` has got (a bar); the clock of the time left starts with the step.
    func update(step: String, _ done: Int, _ total: Int) {
        guard total > 0 else { return }
        let percent = min(100, done * 100 / total)
        let now = ContinuousClock.now
        let elapsed = state.withLock { state -> Duration? in
            if state.step != step {
                state = State(step: step, stepStart: now)
            }
            let recent = state.lastDrawn.map { now - $0 < .milliseconds(100) } ?? false
            guard percent != state.lastPercent || !recent else { return nil }
            state.lastPercent = percent
            state.lastDrawn = now
            return now - state.stepStart
        }
        guard let elapsed else { return }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let label = step.isEmpty ? self.label : "\(self.label): \(step)"
        Console.err("\r\u{1B}[2K" + ProgressText.bar(label, done: done, total: total, elapsedSeconds: seconds))
    }

    /// Draws a step of unknown length (at most ten times a second).
    func show(step text: String) {
        let now = ContinuousClock.now
        let draw = state.withLock { state -> Bool in
            if state.step != text {
                state = State(step: text, stepStart: now)
            } else if let last = state.lastDrawn, now - last < .milliseconds(100) {
                return false
            }
            state.lastDrawn = now
            return true
        }
        if draw { Console.err("\r\u{1B}[2K" + ProgressText.step(label, text)) }
    }

    /// Draws how far a series of launches (`measure`, `trace`) has got.
    func update(_ progress: LaunchProgress) {
        if let phase = progress.phase {
            state.withLock { $0 = State(step: phase) }
            Console.err("\r\u{1B}[2K" + ProgressText.step(label, phase))
            return
        }
        update(progress.completed, progress.total)
    }

    /// Draws how far a folder audit has got, from the first folder listed.
    func update(_ progress: AuditProgress) {
        switch progress {
        case .walking(let files):
            // One step whatever the count, so the display is throttled; the count is in the text.
            let now = ContinuousClock.now
            let draw = state.withLock { state -> Bool in
                if state.step != "walking" {
                    state = State(step: "walking", stepStart: now)
                } else if let last = state.lastDrawn, now - last < .milliseconds(100) {
                    return false
                }
                state.lastDrawn = now
                return true
            }
            if draw {
                Console.err(
                    "\r\u{1B}[2K" + ProgressText.step(label, "walking folders, \(Plural.count(files, "file")) found"))
            }
        case .sorting(let done, let total):
            update(step: "reading file headers", done, total)
        case .auditing(let done, let total):
            update(step: "", done, total)
        }
    }

    /// `update` of a folder audit's steps, for the libraries that take a callback.
    var auditSteps: @Sendable (AuditProgress) -> Void { { [self] step in update(step) } }

    /// Clears the line.
    func finish() {
        Console.err("\r\u{1B}[2K")
    }
}
