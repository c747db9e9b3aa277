import PremainRender

/// A positional argument, for help, usage and completions.
struct ArgumentSpec: Sendable {
    /// `<file-or-folder>`, or a word the command takes (`add <report>`).
    var name: String
    var help: String
    var kind: ValueKind = .text
    /// Given any number of times: written `<name>...` in the usage line.
    var repeating = false
    /// May be left out: written `[<name>]`; only the last arguments of a form can be.
    var optional = false

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

/// What a command accepts and how it explains itself, in swift-argument-parser's layout. Each
/// option, argument and form is declared once; the usage line, the help rows, the man page,
/// the completions and the parser's checks are all made from the declarations.
struct CommandSpec: Sendable {
    var name: String
    var abstract: String
    var discussion: String = ""
    /// The positional arguments of a command with one form.
    var arguments: [ArgumentSpec] = []
    /// What may follow `--` in a command with one form.
    var passthrough: Passthrough?
    /// The ways to call a command that has several (`history add|show`, `pr --base|--commits`).
    var forms: [CommandForm] = []
    /// Options every form takes, named in the usage line.
    var options: [any DeclaredOption] = []
    /// Options every form takes that the usage line sums up as `[<options>]` (help lists them).
    var moreOptions: [any DeclaredOption] = []
    /// Options of which at most one may be given (`--closure`, `--no-closure`).
    var exclusive: [[any DeclaredOption]] = []

    /// Everything after `--` is passed through (the command to run), not parsed.
    var acceptsPassthrough: Bool { passthrough != nil || forms.contains { $0.passthrough != nil } }

    /// The usage line after `premain NAME`: the forms in parentheses, the options (an exclusive
    /// group as `[--a | --b]`), `[<options>]`, the arguments and `--`.
    var usageTerms: [UsageTerm] {
        var terms: [UsageTerm] = []
        if !forms.isEmpty { terms.append(.alternatives(forms.map(\.usageTerms))) }
        var shown: Set<String> = []
        for option in options where !shown.contains(option.spec.name) {
            // An exclusive group whose members are all named here is written once, as `[--a | --b]`.
            let group = exclusive.first { $0.contains { $0.spec.name == option.spec.name } } ?? []
            let members = options.filter { member in group.contains { $0.spec.name == member.spec.name } }
            if members.count > 1 {
                terms.append(.either(members))
                shown.formUnion(members.map(\.spec.name))
            } else {
                terms.append(.option(option))
                shown.insert(option.spec.name)
            }
        }
        if !moreOptions.isEmpty { terms.append(.otherOptions) }
        return terms + CommandForm.argumentTerms(arguments, passthrough: passthrough)
    }

    /// The rows of help's ARGUMENTS: each argument, or each form's action with its arguments.
    var argumentRows: [ArgumentSpec] {
        var rows = arguments
        if let passthrough { rows.append(passthrough.first) }
        for form in forms {
            guard var action = form.action else {
                rows += form.arguments + [form.passthrough?.first].compactMap { $0 }
                continue
            }
            let words = CommandForm.argumentTerms(form.arguments, passthrough: form.passthrough).map(\.text)
            action.name = ([action.name] + words).joined(separator: " ")
            if action.kind == .text, let kind = form.arguments.first?.kind { action.kind = kind }
            rows.append(action)
        }
        return rows
    }

    static let help = Option.flag("--help", short: "-h", help: "Show help information")
    /// Every command takes it: stderr gets errors only (no progress, notes or status lines).
    static let quiet = Option.flag(
        "--quiet", short: "-q",
        help: "Print only the report and errors: no progress bar, notes or status lines on stderr")

    /// Every option's spec once, in declaration order (the usage line's, the forms', then the
    /// others), `--quiet` and `--help` last.
    var allOptions: [OptionSpec] {
        var seen: Set<String> = []
        let declared = options + forms.flatMap { $0.required + $0.options } + moreOptions
        return declared.map(\.spec).filter { seen.insert($0.name).inserted } + [Self.quiet.spec, Self.help.spec]
    }

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
        wrappedUsage(label: "Usage:", width: width)
    }

    /// `LABEL premain NAME` and the usage terms wrapped at `width` between whole terms, later
    /// lines indented under the first term (or by 4 when the label is long): the error's usage
    /// lines and help's USAGE alike.
    private func wrappedUsage(label: String, width: Int) -> [String] {
        let first = "\(label) premain \(name)"
        let indent = String(repeating: " ", count: first.count + 1 <= 40 ? first.count + 1 : 4)
        return TextWrap.lines(
            [first] + Self.atoms(usageTerms.map(\.text).joined(separator: " ")), width: width, indent: indent)
    }

    /// The words of a usage line that a wrap must not break: `[--format <format>]` stays whole,
    /// a form's parentheses and bars do not hold their contents together.
    static func atoms(_ usage: String) -> [String] {
        var atoms: [String] = []
        var current = ""
        var depth = 0
        for character in usage {
            if character == " ", depth == 0 {
                if !current.isEmpty { atoms.append(current) }
                current = ""
                continue
            }
            if character == "[" || character == "<" { depth += 1 }
            if character == "]" || character == ">", depth > 0 { depth -= 1 }
            current.append(character)
        }
        if !current.isEmpty { atoms.append(current) }
        return atoms
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
        out += "\n" + wrappedUsage(label: "USAGE:", width: 100).joined(separator: "\n") + "\n"
        if !argumentRows.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in argumentRows { out += Self.row(argument.name, argument.help) }
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
