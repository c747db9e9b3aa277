import CBuildInfo
import LosslessText
import PremainAudit
import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

/// `premain --help`; built only when shown (a global `let` in main.swift runs at every launch).
var overview: String {
    """
    OVERVIEW: What your binaries cost before main and on the way to first output.

    USAGE: premain <subcommand> [options]

    SUBCOMMANDS:
    \(allCommands.map { CommandSpec.row($0.spec.name, $0.spec.abstract) }.joined())
    OPTIONS:
    \(globalOptions.map(\.spec).map { CommandSpec.row($0.label, $0.helpText) }.joined())
    EXIT CODES:
    \(ExitCode.list)

      See 'premain \(helpWord) <subcommand>' for detailed help.
    """
}

/// `0.1.0 (commit 3ee3600a1b2c)`, `0.1.0 (commit unknown)` when the build did not know it.
var versionLine: String {
    let commit = String(cString: premain_build_commit())
    return premainVersion + " (commit " + (commit.isEmpty ? "unknown" : String(commit.prefix(12))) + ")"
}

func usageFailure(_ message: String, spec: CommandSpec?) -> Never {
    Console.error(message)
    if let spec {
        let usage = spec.usageLines(width: OutputWidth.stderr()).joined(separator: "\n")
        Console.err("\(usage)\n  See 'premain \(spec.name) \(CommandSpec.help)' for more information.\n")
    } else {
        Console.err(
            "Usage: premain <subcommand> [options]\n  See 'premain \(CommandSpec.help)' for more information.\n")
    }
    exit(ExitCode.usage.rawValue)
}

/// "unknown subcommand 'adit'; did you mean 'audit'?".
func unknownSubcommand(_ word: String) -> String {
    NearestName.message("unknown subcommand '\(word)'", for: word, among: allCommands.map { $0.spec.name } + [helpWord])
}

func command(named name: String) -> (any Command.Type)? {
    allCommands.first { $0.spec.name == name }
}

// The arguments' bytes as they are (`CommandLine.arguments` turns a byte that is not UTF-8 into
// U+FFFD, and the file it names into one that does not exist).
var words = (1..<max(1, Int(CommandLine.argc))).compactMap { index in
    CommandLine.unsafeArgv[index].map { LosslessUTF8.string(cString: $0) }
}
TraceCalibration.runIfRequested(words)
Console.survivePipeClosing()
guard let first = words.first else {
    Console.err(overview)
    exit(ExitCode.usage.rawValue)
}
switch first {
case _ where CommandSpec.help.spec.names.contains(first):
    Console.outOrExit(overview)
    exit(0)
case versionOption.spec.name:
    Console.outOrExit(versionLine + "\n")
    exit(0)
case helpWord:
    guard words.count > 1 else {
        Console.outOrExit(overview)
        exit(0)
    }
    guard let chosen = command(named: words[1]) else { usageFailure(unknownSubcommand(words[1]), spec: nil) }
    Console.outOrExit(chosen.spec.helpText())
    exit(0)
default:
    break
}
guard let chosen = command(named: first) else {
    usageFailure(
        first.hasPrefix("-")
            ? NearestName.message(
                "unknown option '\(first)'", for: first,
                among: (CommandSpec.help.spec.names + [versionOption.spec.name]).filter { $0.hasPrefix("--") })
            : unknownSubcommand(first), spec: nil)
}
words.removeFirst()
do {
    let parsed = try ArgumentParser.parse(words, spec: chosen.spec)
    if parsed.wantsHelp {
        Console.outOrExit(chosen.spec.helpText())
        exit(0)
    }
    if parsed[CommandSpec.quiet] { Console.beQuiet() }
    let code = try chosen.run(parsed)
    // Any command that wanted source lines (check's and diff's findings too) says once that
    // libdw could not give them; audit and trace have said it already, with their reports.
    if let warning = DebugInfo.unavailableWarning { Console.warning(warning) }
    exit(code.rawValue)
} catch {
    usageFailure(error.message, spec: chosen.spec)
}
