import LosslessText
import PremainField
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `premain field path|env|run|report|compare|export`: start-up as users live it, from the launch
/// records that the rtld-audit recorder (libpremain-record.so) writes on real machines.
enum FieldCommand: Command {
    static let recorderName = "libpremain-record.so"

    static let spec = CommandSpec(
        name: "field",
        abstract: "Start-up in the field: record launches with an rtld-audit recorder, report percentiles per version.",
        discussion: """
            'path' prints where the recorder is: beside the premain binary, else in ../lib/premain/ \
            from it (exit status \(ExitCode.inputError), naming both, when neither exists). 'env' prints what to set: \
            a shell profile snippet and a systemd drop-in with LD_AUDIT and \(PremainEnvironment.fieldFolder.name), and \
            how to make the spool folder (the recorder never creates it). 'run -- COMMAND' runs \
            one command under the recorder with an exact birth time: it prepends the recorder to \
            LD_AUDIT and starts the command (vfork + execve: premain's own address space is not torn \
            down inside the command's time), which sets PREMAIN_T0 to CLOCK_MONOTONIC (ns) and its own \
            pid just before execve; premain passes signals on and exits with the command's status \
            (exit status \(ExitCode.inputError) when the command or the recorder cannot be found). With \(notify), or \
            when NOTIFY_SOCKET is set (a service manager waits for READY=1), the command gets its own \
            NOTIFY_SOCKET, each message is passed on unchanged, and the first READY=1 is recorded as a \
            'ready' mark.

            'report [DIR...]' reads the spool folders (default $\(PremainEnvironment.fieldFolder.name), else \
            /var/tmp/premain-field), or one field report JSON to render again, and gives per \
            executable × version (build ID) × scenario (first argument) × temperature: launches, \
            p50/p90/p95/p99 of time to main (birth to main), of loader start to main and of each \
            mark, each with a distribution-free 95 % interval (order statistics); a percentile \
            without enough launches says so. Temperature: warm when the launch took no major fault \
            and read < 64 KiB, cold from 1 MiB read or 4 major faults, mixed otherwise. The \
            measurement contract follows: population, start and end, clock sources, exclusions \
            with counts, and the programs the recorder cannot see. When premain.json (\(ConfigOptions.config), \
            else the nearest one) declares launches, each row is named for the launch it matches \
            (its program's file name is the executable's and its first argument the scenario), as \
            measure, compare and pr name their rows; exports carry it as the label 'launch'. \
            docs/field-record.md has the record; docs/commands/field.md the rules.

            'compare OLD NEW' compares time to main of two versions, row by row: two field report \
            JSON files or folders, or one with \(oldVersion) and \(newVersion) (a build ID or its prefix). Each \
            percentile's difference gets the interval [new low − old high, new high − old low] of \
            the two 95 % intervals (at least 90 % coverage, distribution-free). p50 and p90 are \
            gated: regression when an interval lies wholly above +threshold, improvement when \
            wholly below −threshold, no change when wholly inside, inconclusive otherwise; the \
            threshold is the larger of \(thresholdMs) and \(thresholdPercent) of the old value. Exit status \
            \(VerdictStatus.regression.exitCode) for a regression, \(VerdictStatus.inconclusive.exitCode) when inconclusive, 0 otherwise; \(ExitCode.inputError) when an input cannot be read.

            'export [DIR...]' gives what 'report' reads to the monitoring a fleet already runs: \
            \(FieldExportOptions.textfile) writes node_exporter's textfile (Prometheus text format: \
            histograms premain_launch_to_main_seconds, premain_loader_to_main_seconds and \
            premain_launch_to_mark_seconds per executable, version, scenario and temperature, in \
            seconds, over fixed buckets 10 µs × 2^(i/10), and the exclusions), \(FieldExportOptions.otlp) POSTs \
            the same histograms as OTLP/HTTP JSON to an OpenTelemetry collector (cumulative, the \
            window of the spool files' writes). Exit status \(ExitCode.internalError) after one Error: line per \
            destination that failed.
            """,
        forms: [
            CommandForm(action: pathArgument),
            CommandForm(action: envArgument),
            CommandForm(
                action: runArgument, options: [notify], passthrough: Passthrough(first: command, required: true)),
            CommandForm(
                action: reportArgument,
                options: [format, OutputOptions.output, ConfigOptions.config, ConfigOptions.noConfig],
                arguments: [inputs]),
            CommandForm(
                action: compareArgument,
                options: [oldVersion, newVersion, thresholdMs, thresholdPercent, format, OutputOptions.output],
                arguments: [old, new]),
            CommandForm(
                action: exportArgument,
                options: FieldExportOptions.options + [ConfigOptions.config, ConfigOptions.noConfig],
                arguments: [inputs]),
        ])

    /// What `field` does: its first argument.
    enum Action: String, CaseIterable {
        case path, env, run, report, compare, export
    }

    static let pathArgument = ArgumentSpec(name: Action.path.rawValue, help: "Print the recorder's path.")
    static let envArgument = ArgumentSpec(
        name: Action.env.rawValue,
        help: "Print a shell profile snippet, a systemd drop-in and the spool folder's set-up.")
    static let runArgument = ArgumentSpec(
        name: Action.run.rawValue, help: "Run a command under the recorder with an exact birth time (PREMAIN_T0).")
    static let reportArgument = ArgumentSpec(
        name: Action.report.rawValue,
        help: "Percentiles per executable, version, scenario and temperature, and the contract.",
        kind: .path(.any))
    static let compareArgument = ArgumentSpec(
        name: Action.compare.rawValue, help: "Compare two versions' percentiles of time to main, with a verdict.",
        kind: .path(.any))

    static let inputs = ArgumentSpec(
        name: "<folder-or-report>", help: "Spool folders or record files (default: the spool folder).",
        kind: .path(.any), repeating: true, optional: true)
    static let old = ArgumentSpec(
        name: "<old>", help: "A spool folder or a field report (JSON); alone, with both versions named.",
        kind: .path(.any))
    static let new = ArgumentSpec(
        name: "<new>", help: "The new version's spool folder or field report.", kind: .path(.any), optional: true)
    static let command = ArgumentSpec(name: "<command>", help: "The program to run under the recorder.", kind: .command)
    static let exportArgument = ArgumentSpec(
        name: Action.export.rawValue,
        help: "Export the histograms to node_exporter's textfile collector or an OTLP/HTTP collector.",
        kind: .path(.any))

    enum Format: String, OptionChoice {
        case text, json, markdown, html

        var note: String? { self == .html ? "report: one self-contained page with the histograms" : nil }
    }

    static let format = OutputOptions.format(default: Format.text, help: "report, compare: output format")
    static let notify = Option.flag(
        "--notify",
        help:
            "run: stay the command's parent, pass its sd_notify messages on and record READY=1 as a 'ready' mark (on by itself when NOTIFY_SOCKET is set)"
    )
    static let oldVersion = Option<String?>(
        "--old-version", value: "build-id", help: "compare: the old version's build ID (or a prefix)")
    static let newVersion = Option<String?>(
        "--new-version", value: "build-id", help: "compare: the new version's build ID (or a prefix)")
    static let thresholdMs = Option<Double>(
        "--threshold-ms", value: "ms", help: "compare: the smallest change that counts, in ms", default: 0.5,
        in: 0...1_000_000)
    static let thresholdPercent = Option<Double>(
        "--threshold-percent", value: "percent",
        help: "compare: the smallest change that counts, in % of the old value",
        default: 5, in: 0...1_000)

    static func run(_ arguments: ParsedArguments) throws(UsageError) -> ExitCode {
        // The parser has chosen the form by its action word and checked its arguments and '--'.
        guard let action = arguments.action.flatMap(Action.init(rawValue:)) else {
            throw spec.missingAction
        }
        let rest = arguments.positionals
        switch action {
        case .path: return printPath()
        case .env: return printEnvironment()
        case .run:
            return FieldLauncher.run(arguments.passthrough, notify: arguments[notify])
        case .report:
            let inputs = rest.isEmpty ? [PremainEnvironment.fieldDirectory()] : rest
            try OutputOptions.refuseConflicts(
                arguments, outputs: [OutputOptions.output],
                inputs: inputs + spoolFiles(inputs) + [ConfigOptions.file(arguments)].compactMap { $0 })
            let launches = try ConfigOptions.load(arguments).launches
            return report(
                inputs, launches: launches, format: arguments[format],
                output: arguments[OutputOptions.output])
        case .compare:
            if rest.count == 1 && (arguments[oldVersion] == nil || arguments[newVersion] == nil) {
                throw UsageError(message: "one input needs \(oldVersion) and \(newVersion)")
            }
            guard arguments[format] != .html else {
                throw UsageError(message: "field compare writes text, json or markdown, not html")
            }
            try OutputOptions.refuseConflicts(
                arguments, outputs: [OutputOptions.output], inputs: rest + spoolFiles(rest))
            return compare(rest, arguments)
        case .export:
            try FieldExportOptions.validate(arguments)
            let inputs = rest.isEmpty ? [PremainEnvironment.fieldDirectory()] : rest
            try OutputOptions.refuseConflicts(
                arguments, outputs: [FieldExportOptions.textfile],
                inputs: inputs + spoolFiles(inputs) + [ConfigOptions.file(arguments)].compactMap { $0 })
            let launches = try ConfigOptions.load(arguments).launches
            guard let report = load(inputs, launches: launches) else { return .inputError }
            return FieldExportOptions.write(report, arguments)
        }
    }

    /// The files in the folders among `inputs` (a spool's records and drops), which an output
    /// may not replace either.
    static func spoolFiles(_ inputs: [String]) -> [String] {
        inputs.filter { LocalFiles.kind($0) == .folder }.flatMap { folder in
            ((try? LocalFiles.entries(of: folder).get()) ?? []).map { folder + "/" + $0 }
        }
    }

    /// The recorder beside the premain binary, then in ../lib/premain/ from it.
    static func recorderPaths() -> [String] {
        let binary = LocalFiles.linkTarget("/proc/self/exe") ?? CommandLine.arguments.first ?? "premain"
        let folder = LocalFiles.directory(of: binary)
        return [folder + "/" + recorderName, folder + "/../lib/premain/" + recorderName]
    }

    /// The first of `recorderPaths` that is a file; `nil` after an error naming both.
    static func recorder() -> String? {
        let candidates = recorderPaths()
        if let found = candidates.first(where: { LocalFiles.kind($0) == .file }) {
            return LocalFiles.realPath(found) ?? found
        }
        Console.error(
            "no \(recorderName): neither \(candidates.map { TextSafety.display($0) }.joined(separator: " nor ")) exists (install premain with its recorder)"
        )
        return nil
    }

    static func printPath() -> ExitCode {
        guard let path = recorder() else { return .inputError }
        return Console.out(path + "\n") ? .success : .internalError
    }

    static func printEnvironment() -> ExitCode {
        guard let path = recorder() else { return .inputError }
        let folder = PremainEnvironment.fieldDirectory()
        return Console.out(FieldSetup.text(recorder: path, folder: folder)) ? .success : .internalError
    }

    /// The field report of `inputs` (folders, or one report JSON), its rows named for the
    /// declared `launches` they match.
    static func load(_ inputs: [String], launches: [DeclaredLaunch]) -> FieldReport? {
        load(inputs).map { FieldLaunchTags.tag($0, launches: launches) }
    }

    /// The field report of `inputs`: folders, or one report JSON.
    static func load(_ inputs: [String]) -> FieldReport? {
        let files = inputs.filter { LocalFiles.kind($0) == .file }
        if !files.isEmpty {
            guard inputs.count == 1, let file = files.first else {
                Console.error(
                    "give spool folders, or one field report JSON: percentiles of several reports cannot be merged")
                return nil
            }
            guard let bytes = LocalFiles.read(file, limit: 1 << 30) else {
                Console.error("\(TextSafety.display(file)): cannot read the report")
                return nil
            }
            do {
                return try JSONRenderer.decode(FieldReport.self, from: String(decoding: bytes, as: UTF8.self))
            } catch {
                Console.error("\(TextSafety.display(file)): not a field report JSON (\(error))")
                return nil
            }
        }
        do {
            return try FieldReportBuilder.report(folders: inputs)
        } catch {
            let missing = LocalFiles.kind(error.path) == .missing
            Console.error(error.description + (missing ? " (set the recorder up with 'premain field env')" : ""))
            return nil
        }
    }

    static func report(_ inputs: [String], launches: [DeclaredLaunch], format: Format, output: String?) -> ExitCode {
        guard let report = load(inputs, launches: launches) else { return .inputError }
        let written = Console.emit(to: output) { () throws -> String in
            switch format {
            case .json: return try JSONRenderer.render(report)
            case .markdown: return FieldMarkdownRenderer.render(report)
            case .html: return FieldHTMLRenderer.render(report)
            case .text: return FieldTextRenderer.render(report)
            }
        }
        return written ? .success : .internalError
    }

    static func compare(_ inputs: [String], _ arguments: ParsedArguments) -> ExitCode {
        guard let old = load([inputs[0]]) else { return .inputError }
        let new: FieldReport
        if inputs.count == 2 {
            guard let loaded = load([inputs[1]]) else { return .inputError }
            new = loaded
        } else {
            new = old
        }
        let settings = FieldCompareSettings(
            thresholdMs: arguments[thresholdMs], thresholdPercent: arguments[thresholdPercent], gated: [.p50, .p90])
        let result: FieldCompareReport
        do {
            result = try FieldComparison.compare(
                old: old, new: new, oldSource: inputs[0], newSource: inputs.last ?? inputs[0],
                oldVersion: arguments[oldVersion], newVersion: arguments[newVersion], settings: settings)
        } catch {
            Console.error(error.description)
            return .inputError
        }
        let written = Console.emit(to: arguments[OutputOptions.output]) { () throws -> String in
            switch arguments[format] {
            case .json: return try JSONRenderer.render(result)
            case .markdown: return FieldCompareMarkdownRenderer.render(result)
            case .text, .html: return FieldCompareTextRenderer.render(result)
            }
        }
        return written ? result.verdict.exitCode : .internalError
    }
}
