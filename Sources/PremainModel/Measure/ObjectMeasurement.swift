/// One object's loader events over the runs.
public struct ObjectMeasurement: Codable, Equatable, Sendable {
    public enum Role: String, Codable, Sendable {
        case loader, library, executable
    }

    public var path: String
    public var role: Role
    /// When its mapping was done; `nil` for the executable and the loader (mapped by the kernel).
    public var mapped: TimeSummary?
    /// When its initializers started; `nil` when it has none.
    public var initializersStart: TimeSummary?
    /// Duration of all its initializers together; `nil` when it has none.
    public var initializers: TimeSummary?

    public init(path: String, role: Role, mapped: TimeSummary? = nil,
                initializersStart: TimeSummary? = nil, initializers: TimeSummary? = nil) {
        self.path = path
        self.role = role
        self.mapped = mapped
        self.initializersStart = initializersStart
        self.initializers = initializers
    }
}
