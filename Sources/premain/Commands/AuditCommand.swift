import PremainCore

/// `premain audit FILE...`: the static audit, without running anything.
enum AuditCommand: Command {
    static let spec = CommandSpec(
        name: "audit",
        abstract: "Report what ELF files make the loader do before main, without running them.",
        usage: "premain audit [--format <format>] [--symbols] [--output <path>] <file>...",
        discussion: """
        For each file: header, dependencies (DT_NEEDED, RPATH, RUNPATH), binding, relocations \
        the loader applies by class (relative incl. RELR, symbolic, plt, copy, irelative, tls), \
        exported and imported dynamic symbols, static initializers (symbolized and demangled), \
        Swift start-up suspects (lazy globals, default-argument generators) and segment sizes. \
        A file that cannot be read gets one 'Error: <path>: <reason>' line on stderr; the other \
        files are still audited.
        """,
        arguments: [ArgumentSpec(name: "<file>", help: "ELF files (executables, shared libraries, objects).")],
        options: [
            OptionSpec(names: ["-f", "--format"], valueName: "format", help: "Output format: text (default) or json."),
            OptionSpec(names: ["-o", "--output"], valueName: "path", help: "Write the report to this file instead of stdout."),
            OptionSpec(names: ["--symbols"], valueName: nil, help: "List every exported and imported dynamic symbol."),
            OptionSpec(names: ["--no-demangle"], valueName: nil, help: "Show mangled names only."),
        ])

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = try arguments.choice("--format", ["text", "json"], default: "text")
        guard !arguments.positionals.isEmpty else { throw UsageError(message: "missing expected argument '<file>'") }
        let options = InventoryOptions(symbolLists: arguments.flag("--symbols"),
                                       demangle: !arguments.flag("--no-demangle"))
        var binaries: [BinaryInventory] = []
        var errors: [FileError] = []
        for path in arguments.positionals {
            do {
                let inventory = try InventoryBuilder.audit(path: path, options: options)
                binaries.append(inventory)
            } catch {
                errors.append(FileError(path: path, reason: error.reason.rawValue, message: error.message))
            }
        }
        let report = AuditReport(binaries: binaries, errors: errors)
        let text: String
        do {
            text = format == "json" ? try JSONRenderer.render(report) : AuditTextRenderer.render(report)
        } catch {
            Console.error("cannot encode the report: \(error)")
            return .internalError
        }
        if let problem = Console.write(text, to: arguments.value("--output")) {
            Console.error(problem)
            return .internalError
        }
        return reportProblems(report)
    }

    /// One `Error:` line per file that failed or has broken tables; the exit code follows.
    static func reportProblems(_ report: AuditReport) -> ExitCode {
        var failed = false
        for error in report.errors {
            Console.error("\(TextSafety.display(error.path)): \(error.message)")
            failed = true
        }
        for binary in report.binaries where !binary.diagnostics.isEmpty {
            let more = binary.diagnostics.count > 1 ? " (and \(binary.diagnostics.count - 1) more problems)" : ""
            Console.error("\(TextSafety.display(binary.path)): \(binary.diagnostics[0])\(more)")
            failed = true
        }
        return failed ? .inputError : .success
    }
}
