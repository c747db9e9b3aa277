import PremainRender

/// A positional argument, for help, usage and completions.
struct ArgumentSpec: Sendable {
    /// `<file-or-folder>`, or a word the command takes (`add <report>`).
    var name: String
    var help: String
    var kind: ValueKind = .text
    /// Given any number of times: written `<name>...` in the usage line.
    var repeating = false

    var usage: String { name + (repeating ? "..." : "") }
}

/// One piece of a usage line, made from the declarations it names.
indirect enum UsageTerm: Sendable {
    /// `[--runs <n>]`.
    case option(any DeclaredOption)
    /// `--base <folder>`: required (within its alternative).
    case required(any DeclaredOption)
    /// `[--explain | --no-explain]`.
    case either([any DeclaredOption])
    /// `<base>`, `<file-or-folder>...`.
    case argument(ArgumentSpec)
    /// `(A | B)`: one of several sequences.
    case alternatives([[UsageTerm]])
    /// `--`, `[<argument>...]`, `[<options>]`: written as it is.
    case word(String)

    var text: String {
        switch self {
        case .option(let option): return "[\(option.spec.usage)]"
        case .required(let option): return option.spec.usage
        case .either(let options): return "[" + options.map(\.spec.usage).joined(separator: " | ") + "]"
        case .argument(let argument): return argument.usage
        case .alternatives(let sequences):
            return "(" + sequences.map { $0.map(\.text).joined(separator: " ") }.joined(separator: " | ") + ")"
        case .word(let word): return word
        }
    }

    /// `[<options>]`: the options the usage line does not name.
    static let otherOptions = UsageTerm.word("[<options>]")
}

/// What a command accepts and how it explains itself, in swift-argument-parser's layout: the
/// usage line, the option rows and the checks of the parser are all made from `options`.
struct CommandSpec: Sendable {
    var name: String
    var abstract: String
    var discussion: String = ""
    var arguments: [ArgumentSpec] = []
    /// The usage line after `premain NAME`.
    var usageTerms: [UsageTerm] = []
    var options: [any DeclaredOption] = []
    /// Options of which at most one may be given (`--closure`, `--no-closure`).
    var exclusive: [[any DeclaredOption]] = []
    /// Everything after `--` is passed through (the command to run), not parsed.
    var acceptsPassthrough = false

    static let help = Option.flag("--help", short: "-h", help: "Show help information")
    /// Every command takes it: stderr gets errors only (no progress, notes or status lines).
    static let quiet = Option.flag(
        "--quiet", short: "-q",
        help: "Print only the report and errors: no progress bar, notes or status lines on stderr")

    /// Every option's spec, `--quiet` and `--help` last.
    var allOptions: [OptionSpec] { options.map(\.spec) + [Self.quiet.spec, Self.help.spec] }

    func option(named name: String) -> OptionSpec? {
        allOptions.first { $0.names.contains(name) }
    }

    /// `premain audit [--format <format>] … <file-or-folder>...`.
    var usage: String {
        (["premain", name] + usageTerms.map(\.text)).joined(separator: " ")
    }

    /// `Usage: premain audit [--format <format>] …` wrapped at `width` between its terms, later
    /// lines indented under the first term after the command's name.
    func usageLines(width: Int) -> [String] {
        let first = "Usage: premain \(name)"
        let indent = String(repeating: " ", count: first.count + 1 <= 40 ? first.count + 1 : 4)
        return TextWrap.lines([first] + usageTerms.map(\.text), width: width, indent: indent)
    }

    /// The `--help` text.
    func helpText() -> String {
        var out = Self.hanging("OVERVIEW: ", abstract) + "\n"
        if !discussion.isEmpty {
            let paragraphs = discussion.split(separator: "\n", omittingEmptySubsequences: false)
            out +=
                "\n"
                + paragraphs.map { Self.wrap(String($0), width: 98).joined(separator: "\n") }
                .joined(separator: "\n") + "\n"
        }
        let usageIndent = "USAGE: premain \(name) "
        out += "\n" + Self.hanging(usageIndent, String(usage.dropFirst(usageIndent.count - 7))) + "\n"
        if !arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in arguments { out += Self.row(argument.name, argument.help) }
        }
        out += "\nOPTIONS:\n"
        for option in allOptions { out += Self.row(option.label, option.helpText) }
        return out
    }

    static func row(_ label: String, _ help: String) -> String {
        let column = 26
        let lines = wrap(help, width: 100 - column)
        var out = "  " + label
        if label.count + 2 >= column {
            out += "\n" + String(repeating: " ", count: column)
        } else {
            out += String(repeating: " ", count: column - label.count - 2)
        }
        out += lines.joined(separator: "\n" + String(repeating: " ", count: column)) + "\n"
        return out
    }

    /// `label` + `text` wrapped at 100 columns, continuation lines indented under the text.
    static func hanging(_ label: String, _ text: String) -> String {
        let indent = label.count <= 40 ? label.count : 4
        return label + wrap(text, width: 100 - indent).joined(separator: "\n" + String(repeating: " ", count: indent))
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        TextWrap.lines(text.split(separator: " "), width: width)
    }
}
