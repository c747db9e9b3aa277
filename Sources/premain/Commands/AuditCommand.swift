import PremainAudit
import PremainModel
import PremainRender

/// `premain audit FILE...`: the static audit, without running anything.
enum AuditCommand: Command {
    static let spec = CommandSpec(
        name: "audit",
        abstract: "Report what ELF files make the loader do before main, without running them.",
        discussion: """
            For each file: header, dependencies (DT_NEEDED, RPATH, RUNPATH), binding, relocations \
            the loader applies by class (relative incl. RELR, symbolic, plt, copy, irelative, tls), \
            exported and imported dynamic symbols, static initializers (symbolized and demangled), \
            Swift start-up suspects (lazy globals named by their variable's full path, default arguments \
            by parameter and function), sizes by section (text, rodata, data, RELRO, bss) and the \
            linker (GNU ld, gold, lld, mold) and languages that made the file. Tables are read as \
            ld.so reads them, through the dynamic tags (DT_STRTAB, DT_SYMTAB, DT_RELA, DT_JMPREL, \
            DT_INIT_ARRAY, ...) mapped through PT_LOAD; section headers are a fallback, and a \
            diagnostic says where they disagree with the tags. \
            A file that cannot be read gets one 'Error: <path>: <reason>' line on stderr; the other \
            files are still audited. \
            The load closure of each file is resolved as glibc's ld.so would (RPATH, LD_LIBRARY_PATH \
            only with \(libraryPath) or \(honorEnv), RUNPATH, ld.so.cache, default directories; \
            $ORIGIN/$LIB/$PLATFORM; class and machine checked): a dependency tree with where each \
            object was found, missing and unused libraries, and the closure's relocations, symbol \
            look-ups, initializers and exports. A folder is audited recursively on all cores (a symlinked \
            folder such as .build/release is followed): only its ELF executables and shared libraries \
            are audited, relocatable objects (.o, .pcm) only with \(FolderOptions.includeObjects), and one 'Note:' \
            line on stderr says what was skipped; symbolic links inside it are not followed, and a \
            summary lists the largest offenders. \
            \(LoaderEstimateOptions.estimate) prints each program's loading and relocation on this machine without running \
            it, from a cost model fitted on measure reports (ns per mapped object, per relative and \
            per symbol relocation) with its held-out error; \(LoaderEstimateOptions.saveModel) keeps the model for later.
            """,
        arguments: [files],
        options: [format, OutputOptions.output],
        moreOptions: [
            schemaVersion, symbols, noDemangle, OutputWidth.option, FolderOptions.includeObjects,
            LoaderEstimateOptions.estimate, LoaderEstimateOptions.saveModel,
        ] + closureOptionSpecs,
        exclusive: [[noClosure, closure]])

    static let files = ArgumentSpec(
        name: "<file-or-folder>", help: "ELF files (executables, shared libraries, objects) or folders of them.",
        kind: .path(.any), repeating: true)

    enum Format: String, OptionChoice {
        case text, json, html

        var note: String? { self == .html ? "one self-contained page: the closure as a tree with costs" : nil }
    }

    static let format = OutputOptions.format(default: Format.text)
    static let schemaVersion = Option<Int?>(
        "--schema-version", value: "1|2",
        help:
            "JSON schema: 2 (the default with several files) writes each closure object once, in a top-level 'objects' table the closures refer to by id; 1 (the default for one file) writes every closure's objects in full",
        in: AuditReport.readableSchemaVersions)
    static let symbols = Option.flag("--symbols", help: "List every exported and imported dynamic symbol")
    static let noDemangle = Option.flag("--no-demangle", help: "Show mangled names only")

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        let format = arguments[format]
        let schema = arguments[schemaVersion]
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs, inputs: arguments.positionals + LoaderEstimateOptions.files(arguments))
        let options = InventoryOptions(symbolLists: arguments[symbols], demangle: !arguments[noDemangle])
        let workers = arguments[jobs]
        let estimate = try LoaderEstimateOptions.model(arguments)
        guard LoaderEstimateOptions.report(estimate, arguments) else { return .inputError }
        let costModel = estimate.model
        let batch = BatchAudit(
            inventory: options, closure: try closureOptions(arguments), workers: workers,
            includeObjects: arguments[FolderOptions.includeObjects])
        let width = OutputWidth.resolve(arguments)
        var tree = treeOptions(arguments)
        tree.width = width
        let progress = ProgressBar.onTerminal("auditing")
        var onProgress: (@Sendable (AuditProgress) -> Void)?
        if let progress {
            onProgress = { step in progress.update(step) }
        }
        let resolver = batch.closure.map { ClosureResolver(options: $0) }
        let report = batch.run(arguments.positionals, resolver: resolver, progress: onProgress)
        progress?.finish()
        // The report and the libraries its closures read are left to the process's end.
        KeptUntilExit.keep(report)
        KeptUntilExit.keep(resolver)
        // The files of the folders and the libraries of their closures.
        try OutputOptions.refuseConflicts(
            arguments, outputs: outputs,
            inputs: report.binaries.flatMap { [$0.path] + ($0.closure?.objects.map(\.realPath) ?? []) })
        // The model first: a report that cannot be written does not lose it, nor it the report.
        let modelSaved = LoaderEstimateOptions.save(costModel, arguments)
        FolderOptions.note(report.skipped, in: arguments.positionals)
        for warning in report.warnings ?? [] { Console.warning(warning) }
        if format == .json {
            // Streamed: a folder's report is written a chunk of binaries at a time.
            let version = schema ?? ParallelAuditJSON.defaultSchemaVersion(for: report)
            let written = Console.emitStream(to: arguments[OutputOptions.output]) { write in
                try ParallelAuditJSON.stream(report, workers: workers, schemaVersion: version, to: write)
            }
            guard written, modelSaved else { return .internalError }
            return reportProblems(report)
        }
        let written = Console.emit(to: arguments[OutputOptions.output]) { () throws -> String in
            if format == .html {
                return HTMLReportRenderer.render(report)
            } else {
                return report.binaries
                    .map { binary in
                        AuditTextRenderer.render(binary, width: width)
                            + ClosureTextRenderer.render(binary, options: tree)
                            + (costModel.flatMap { model in
                                model.estimate(binary).map {
                                    "  loader estimate: " + model.sentence($0, thisMachine: !estimate.foreign) + "\n"
                                }
                            } ?? "")
                    }
                    .joined(separator: "\n")
                    + (report.summary.map { ClosureTextRenderer.render($0, width: width) } ?? "")
            }
        }
        guard written, modelSaved else { return .internalError }
        return reportProblems(report)
    }

    /// Every file audit writes: the report and the cost model.
    static let outputs = [OutputOptions.output, LoaderEstimateOptions.saveModel]

    /// One `Error:` line per file that failed or has broken tables; the exit code follows.
    static func reportProblems(_ report: AuditReport) -> ExitCode {
        var failed = false
        for error in report.errors {
            Console.error("\(TextSafety.display(error.path)): \(error.message)")
            failed = true
        }
        // By index: a `for binary in` copies each inventory whole.
        for index in report.binaries.indices where !report.binaries[index].diagnostics.isEmpty {
            let diagnostics = report.binaries[index].diagnostics
            let more = diagnostics.count > 1 ? " (and \(diagnostics.count - 1) more problems)" : ""
            Console.error("\(TextSafety.display(report.binaries[index].path)): \(diagnostics[0])\(more)")
            failed = true
        }
        return failed ? .inputError : .success
    }
}
