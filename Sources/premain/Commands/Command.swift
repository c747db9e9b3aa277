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
    FieldCommand.self,
    RulesCommand.self,
    CompletionsCommand.self,
    ManualCommand.self,
]

/// `premain --version`: the version and the commit it was built from.
let versionOption = Option.flag("--version", help: "Show the version")

/// The options of `premain` itself, before any subcommand.
let globalOptions: [any DeclaredOption] = [CommandSpec.help, versionOption]

/// `premain help SUBCOMMAND`: the word that shows a subcommand's help.
let helpWord = "help"
