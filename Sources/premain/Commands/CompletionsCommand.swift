import PremainModel
import PremainSystem

/// `premain completions SHELL`: a completion script for bash, zsh or fish, made from the
/// command declarations.
enum CompletionsCommand: Command {
    static let spec = CommandSpec(
        name: "completions",
        abstract: "Print a shell completion script for bash, zsh or fish.",
        discussion: """
            The script completes subcommands, each command's options, the words an option such as \
            \(OutputOptions.formatName) takes, files and folders where a path is expected, and the command to run after \
            '--'. It is made from the same declarations as \(CommandSpec.help). Install it where the shell looks: \
            /usr/share/bash-completion/completions/premain (or source it from ~/.bashrc), _premain in \
            a folder of zsh's $fpath, /usr/share/fish/vendor_completions.d/premain.fish.
            """,
        arguments: [shell])

    static let shell = ArgumentSpec(
        name: "<shell>", help: "bash, zsh or fish.", kind: .choice(Completions.Shell.allCases.map(\.rawValue)))

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        // The parser has checked the one word against the declared choices.
        guard let chosen = arguments.positionals.first.flatMap(Completions.Shell.init(rawValue:)) else {
            throw UsageError(message: "missing expected argument '\(shell.name)'")
        }
        return Console.out(Completions.script(for: chosen, program)) ? .success : .internalError
    }

    /// premain as the completion scripts see it.
    static var program: Completions.Program {
        Completions.Program(
            commands: allCommands.map { $0.spec }, globalOptions: globalOptions.map(\.spec), helpWord: helpWord)
    }
}

/// `premain manual`: premain(1), the man page, in mdoc.
enum ManualCommand: Command {
    static let spec = CommandSpec(
        name: "manual",
        abstract: "Print premain's manual page (mdoc), as installed in man1/premain.1.",
        discussion: """
            Every subcommand with its options, defaults and ranges, the exit status and the \
            environment, made from the same declarations as \(CommandSpec.help). Read it with \
            'premain manual | man -l -'.
            """)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        return Console.out(ManualPage.render(page)) ? .success : .internalError
    }

    static var page: ManualPage.Page {
        ManualPage.Page(
            commands: allCommands.map { $0.spec }, globalOptions: globalOptions.map(\.spec),
            exitCodes: ExitCode.allCases.map { ($0.rawValue, $0.summary) },
            environment: PremainEnvironment.all, date: premainReleaseDate, version: premainVersion)
    }
}
