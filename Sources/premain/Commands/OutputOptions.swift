import PremainLaunch
import PremainSystem

/// Where a report goes and in what format; and what an output may not be: a file the command
/// reads (`audit --output X X` would replace the binary it audits with the report about it), or
/// the file another output writes.
enum OutputOptions {
    static let output = Option<String?>(
        "--output", short: "-o", value: "path", kind: .path(.file),
        help:
            "Write the report to this file instead of stdout ('-': stdout), whole or not at all: a failed write keeps the old file"
    )

    /// The end of the help of every other output: `-` and where the report then goes.
    static let dashHelp = " ('-': stdout, and the report goes to stderr; one output at most may be '-')"

    static let formatName = "--format"

    /// `-f, --format`, with the words of `Format` and its default.
    static func format<Format: OptionChoice>(default fallback: Format, help: String = "Output format") -> Option<Format>
    {
        Option(formatName, short: "-f", value: "format", help: help, default: fallback)
    }

    /// The files a launched command reads that premain knows of before launching it: the
    /// program (looked up in the `PATH` of `environment`) and the arguments that name existing
    /// files. The libraries it loads are known after the runs (`LaunchMeasurement.objects`).
    static func commandFiles(_ command: [String], _ environment: [String]) -> [String] {
        guard let first = command.first else { return [] }
        return [CommandResolver.executable(for: first, environment: environment)].compactMap { $0 }
            + command.dropFirst()
    }

    /// Throws a usage error, before any work, when one of `outputs` (the command's file
    /// options: `--output`, the exports, `--save-model`, pr's files) names the same file as
    /// another output, or names an existing file that is one of `inputs` (the same device and
    /// inode, so another name of it, a hard link, a symlink, `./X`, counts too), or an existing
    /// ELF file below one of `folders` (the folders whose programs and libraries a command reads,
    /// before the walk; a report left there by an earlier run may be replaced).
    /// A folder among `inputs` is not a file; give its files after the walk. "-" (stdout) is not
    /// a file: at most one output may be "-", and when it is another than `--output`, the
    /// report that would have gone to stdout goes to stderr (`Console.sendReportToStderr`).
    static func refuseConflicts(
        _ arguments: ParsedArguments, outputs: [Option<String?>], inputs: [String], folders: [String] = []
    ) throws(UsageError) {
        let toStdout = outputs.filter { arguments[$0] == "-" }
        if toStdout.count > 1 {
            throw UsageError(
                message: toStdout.map(\.description).joined(separator: " and ")
                    + (toStdout.count == 2 ? " both" : " all")
                    + " write to stdout ('-'); at most one output may be '-', give the others files")
        }
        if let only = toStdout.first, only.spec.name != output.spec.name { Console.sendReportToStderr() }
        let given = outputs.compactMap { option in
            arguments[option].flatMap { $0 == "-" ? nil : (option: option, path: $0) }
        }
        var seen: [FileIdentity: (option: Option<String?>, path: String)] = [:]
        for output in given {
            let identity = FileIdentity(output.path)
            if let earlier = seen[identity] {
                // Console.error shows the names escaped.
                throw UsageError(
                    message:
                        "\(earlier.option) '\(earlier.path)' and \(output.option) '\(output.path)' name the same file; give each output its own file"
                )
            }
            seen[identity] = output
        }
        let existing = seen.filter { if case .inode = $0.key { true } else { false } }
        guard !existing.isEmpty else { return }
        for folder in folders {
            guard let root = LocalFiles.realPath(folder) else { continue }
            let prefix = root.hasSuffix("/") ? root : root + "/"
            for output in given where LocalFiles.kind(output.path) == .file {
                guard let real = LocalFiles.realPath(output.path), real.hasPrefix(prefix),
                    LocalFiles.head(real, count: 4) == [0x7f, 0x45, 0x4c, 0x46]  // "\u{7f}ELF"
                else { continue }
                throw UsageError(
                    message:
                        "\(output.option) '\(output.path)' is also an input (a file of '\(folder)'); the output would overwrite it, write it elsewhere"
                )
            }
        }
        // A folder, a device or a FIFO named as an input is not itself a file's contents.
        for input in inputs where LocalFiles.kind(input) == .file {
            guard let output = existing[FileIdentity(input)] else { continue }
            let same = input == output.path ? "" : " (\(input))"
            throw UsageError(
                message:
                    "\(output.option) '\(output.path)' is also an input\(same); the output would overwrite it, write it elsewhere"
            )
        }
    }
}
