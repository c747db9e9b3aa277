import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Where a report goes and in what format; and what `--output` may not be: a file the command
/// reads (`audit --output X X` would replace the binary it audits with the report about it).
enum OutputOptions {
    static let output = Option<String?>(
        "--output", short: "-o", value: "path", kind: .path(.file),
        help: "Write the report to this file instead of stdout")

    static let formatName = "--format"

    /// `-f, --format`, with the words of `Format` and its default.
    static func format<Format: OptionChoice>(default fallback: Format, help: String = "Output format") -> Option<Format>
    {
        Option(formatName, short: "-f", value: "format", help: help, default: fallback)
    }

    /// Throws a usage error when `--output` names an existing file that is one of `inputs`: the
    /// same device and inode, so another name of it (a hard link, a symlink, `./X`) counts too.
    /// A folder among `inputs` is not the output itself; give its files after the walk.
    static func refuseInputAsOutput(_ arguments: ParsedArguments, inputs: [String]) throws(UsageError) {
        guard let output = arguments[Self.output], output != "-",
            let target = LocalFiles.status(output), target.st_mode & S_IFMT == S_IFREG
        else { return }
        for input in inputs {
            guard let info = LocalFiles.status(input), info.st_dev == target.st_dev, info.st_ino == target.st_ino else {
                continue
            }
            // Console.error shows the names escaped.
            let same = input == output ? "" : " (\(input))"
            throw UsageError(
                message:
                    "\(Self.output) '\(output)' is also an input\(same); the report would overwrite it, write it elsewhere"
            )
        }
    }
}
