/// The result of `premain measure`: one `Measurement` per command. Codable; JSON
/// `schemaVersion` 1, read by `premain diff` and other tools.
public struct MeasureReport: Codable, Equatable, Sendable {
    public var schemaVersion: Int
    public var measurements: [Measurement]

    public init(measurements: [Measurement]) {
        self.schemaVersion = 1
        self.measurements = measurements
    }
}
