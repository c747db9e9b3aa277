import PremainRender
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// How wide text reports may be: `--wide` for no limit, else the terminal's width when the
/// report goes to a terminal, else `COLUMNS`, else 100.
enum OutputWidth {
    /// The option every command with a text report takes.
    static let option = Option.flag(
        "--wide",
        help:
            "Never shorten or wrap names and lines in text output (default: fit the terminal's width when writing to one, else COLUMNS, else 100 columns)"
    )

    /// Used when nothing else says: the width of the golden files and of CI logs.
    static let standard = 100
    /// Narrower terminals are treated as this wide: names need some room.
    static let minimum = 40

    /// The width for a text report written to `output` (stdout, or stderr when another output
    /// has stdout, when `nil` or "-").
    static func resolve(_ arguments: ParsedArguments) -> Int {
        let toStdout = arguments[OutputOptions.output].map { $0 == "-" } ?? true
        let columns = PremainEnvironment.columns.value
        return width(
            wide: arguments[option], terminal: toStdout ? terminalColumns(Console.reportDescriptor) : nil,
            columns: columns)
    }

    /// `TextFit.unlimited` when `wide`, else the terminal's columns, else `COLUMNS` when it is a
    /// positive number, else `fallback`; never under `minimum`.
    static func width(wide: Bool, terminal: Int?, columns: String?, fallback: Int = standard) -> Int {
        if wide { return TextFit.unlimited }
        if let terminal, terminal > 0 { return max(minimum, terminal) }
        if let columns, let value = Int(columns.trimmingSpaces), value > 0 { return max(minimum, min(value, 10_000)) }
        return fallback
    }

    /// The width of messages on stderr (a usage line after an error): the terminal's when
    /// stderr is one, else `COLUMNS`, else 80.
    static func stderr() -> Int {
        width(wide: false, terminal: terminalColumns(2), columns: PremainEnvironment.columns.value, fallback: 80)
    }

    /// The columns of the terminal on `fd` (ioctl `TIOCGWINSZ`), or `nil` when it is no terminal.
    static func terminalColumns(_ fd: Int32) -> Int? {
        guard Console.isTerminal(fd) else { return nil }
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var slice = Substring(self)
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return slice
    }
}
