import PremainAudit
import PremainModel

/// The measurement could not be made at all (command not found, launch set-up failed).
public struct MeasureError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Lowercase, no trailing period.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
