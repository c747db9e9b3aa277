/// The result of `premain measure`: one `LaunchMeasurement` per command. Codable; JSON
/// `schemaVersion` 1, read by `premain diff` and other tools.
public struct MeasureReport: Codable, Equatable, Sendable {
    public var schemaVersion: Int
    public var measurements: [LaunchMeasurement]

    public init(measurements: [LaunchMeasurement]) {
        self.schemaVersion = 1
        self.measurements = measurements
    }
}
