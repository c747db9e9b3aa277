/// One launch that matters, declared once in premain.json's `launches` (issue 35): a name, the
/// program and its arguments, where its start-up ends, the temperatures to measure it at, and
/// its environment, timeout and budgets. `premain measure` without a command measures each
/// declared launch at each of its temperatures: one row (measurement) each.
public struct LaunchDeclaration: Equatable, Sendable {
    /// Where the launch's start-up ends (`until`).
    public enum End: Equatable, Sendable {
        case main, firstOutput, exit
        /// The first output line matching a `--ready` pattern.
        case ready(String)
        /// A function of the program returns (`--until NAME`).
        case function(String)

        /// As `measure --until`/`--ready` take it, for messages.
        public var text: String {
            switch self {
            case .main: return "main"
            case .firstOutput: return "first-output"
            case .exit: return "exit"
            case .ready(let pattern): return "ready /\(pattern)/"
            case .function(let name): return "function \(name)"
            }
        }
    }

    public enum Temperature: String, Equatable, Sendable, CaseIterable {
        case warm, cold
    }

    public var name: String
    /// The program (a path, relative to the working folder, or a name looked up in PATH) and
    /// its arguments.
    public var run: [String]
    public var end: End
    /// In the order given; warm alone by default.
    public var temperatures: [Temperature]
    /// Added to the environment of every run, sorted by name.
    public var environment: [(name: String, value: String)]
    public var timeoutSeconds: Double?
    /// Budgets of the median at a milestone (`main`, `firstOutput`, `exit`), in ms.
    public var maxMedianMs: [String: Double]

    public init(
        name: String, run: [String], end: End = .main, temperatures: [Temperature] = [.warm],
        environment: [(name: String, value: String)] = [], timeoutSeconds: Double? = nil,
        maxMedianMs: [String: Double] = [:]
    ) {
        self.name = name
        self.run = run
        self.end = end
        self.temperatures = temperatures
        self.environment = environment
        self.timeoutSeconds = timeoutSeconds
        self.maxMedianMs = maxMedianMs
    }

    public static func == (a: LaunchDeclaration, b: LaunchDeclaration) -> Bool {
        a.name == b.name && a.run == b.run && a.end == b.end && a.temperatures == b.temperatures
            && a.environment.map(\.name) == b.environment.map(\.name)
            && a.environment.map(\.value) == b.environment.map(\.value) && a.timeoutSeconds == b.timeoutSeconds
            && a.maxMedianMs == b.maxMedianMs
    }

    /// The milestones a budget may name.
    public static let budgetMilestones = ["main", "firstOutput", "exit"]
}
