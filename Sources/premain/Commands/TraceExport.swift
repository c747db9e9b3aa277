/// `--export-trace FILE` of measure, compare and trace: the launches as Chrome/Perfetto
/// trace-event JSON, written next to the report in whatever format the report takes.
enum TraceExport {
    static let option = Option<String?>(
        "--export-trace", value: "path", kind: .path(.file),
        help:
            "Also write the runs as Chrome/Perfetto trace-event JSON (opens in ui.perfetto.dev, chrome://tracing, speedscope)"
            + OutputOptions.dashHelp
    )

    /// The file asked for, or `nil` when the option is absent.
    static func path(_ arguments: ParsedArguments) -> String? {
        arguments[option]
    }

    /// Writes the trace file when asked for; `false` after one `Error:` line when it cannot be
    /// written, `true` when written or not asked for.
    static func write(_ arguments: ParsedArguments, _ render: () throws -> String) -> Bool {
        guard let path = path(arguments) else { return true }
        return Console.emit(to: path, render)
    }
}
