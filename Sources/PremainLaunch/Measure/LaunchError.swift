import PremainAudit
import PremainModel

/// The launch could not be set up (no FIFO, no pipe, fork failed).
public struct LaunchError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Lowercase, no trailing period: "cannot create fifo /tmp/x.42: No space left on device".
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
