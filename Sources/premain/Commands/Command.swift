import PremainModel

/// A subcommand of premain: its spec (options, help) and what it does with parsed arguments.
protocol Command: Sendable {
    static var spec: CommandSpec { get }
    /// Runs the command and returns the process exit code. Usage mistakes are thrown.
    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode
}

/// Every subcommand, in the order `premain --help` lists them.
let allCommands: [any Command.Type] = [
    AuditCommand.self,
    MeasureCommand.self,
    TraceCommand.self,
    CheckCommand.self,
    CompareCommand.self,
    DiffCommand.self,
    PullRequestCommand.self,
    HistoryCommand.self,
    RulesCommand.self,
]
