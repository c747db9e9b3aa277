import PremainAudit
import PremainModel

/// A mistake in premain.json, naming the key: `premain.json: budgets.maxClosureObjects:
/// expected a whole number, found a string`.
public struct ConfigError: Error, Equatable, CustomStringConvertible {
    /// The file the config came from.
    public var file: String
    /// Dotted path of the key (`rules.heavy_static_initializer.thresholdMs`); "" for the
    /// document itself.
    public var key: String
    /// Lowercase, no trailing period.
    public var message: String

    public init(file: String, key: String, message: String) {
        self.file = file
        self.key = key
        self.message = message
    }

    public var description: String {
        key.isEmpty ? "\(file): \(message)" : "\(file): \(key): \(message)"
    }
}
