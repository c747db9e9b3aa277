import PremainSystem

/// premain(1) in mdoc(7), made from the command declarations, as swift-argument-parser's
/// `generate-manual` plugin makes a page from its `ParsableCommand`s: the synopsis from each
/// command's usage terms, the options from their declarations (defaults and ranges
/// included), the exit status from `ExitCode`, the environment from `PremainEnvironment`.
/// docs/man/premain.1 is this page, committed; a test keeps the two equal.
enum ManualPage {
    struct Page {
        var commands: [CommandSpec]
        /// `--help` and `--version`: the options of `premain` itself.
        var globalOptions: [OptionSpec]
        var exitCodes: [(code: Int32, meaning: String)]
        var environment: [EnvironmentVariable]
        /// `December 2, 2026`: the date of this version.
        var date: String
        var version: String
    }

    static func render(_ page: Page) -> String {
        var out = Lines()
        out.macro("Dd", page.date)
        out.macro("Dt", "PREMAIN", "1")
        out.macro("Os")
        out.macro("Sh", "NAME")
        out.macro("Nm", "premain")
        // Unquoted: .Nd takes the rest of its line, and whatis would show a quote (issue 36, item 8).
        out.raw(".Nd what binaries cost before main and on the way to first output")

        out.macro("Sh", "SYNOPSIS")
        out.macro("Nm")
        out.raw(".Ar subcommand")
        out.raw(".Op Ar options")
        for command in page.commands {
            out.macro("Nm")
            out.raw(".Cm " + argument(command.name))
            for term in command.usageTerms { synopsis(term, into: &out) }
        }

        out.macro("Sh", "DESCRIPTION")
        out.text(
            """
            premain tells what a program costs on every launch before its own code runs: the \
            kernel's mapping, the dynamic loader finding, mapping and relocating the dependency \
            closure, every static initializer, then main and the program's own start-up work. \
            It audits ELF files without running them, measures real launches over many runs, \
            judges findings and budgets, and compares two builds for a pull request.
            """)
        out.macro("Pp")
        out.text("Options of premain itself:")
        optionList(page.globalOptions, into: &out)

        commands(page.commands, into: &out)

        out.macro("Sh", "ENVIRONMENT")
        out.raw(".Bl -tag -width Ds")
        for variable in page.environment {
            out.raw(".It Ev " + argument(variable.name))
            out.text("Read by \(variable.readBy): \(variable.effect).")
        }
        out.raw(".El")

        out.macro("Sh", "FILES")
        out.raw(".Bl -tag -width Ds")
        out.raw(".It Pa premain.json")
        out.text(
            """
            Rule thresholds and severities, budgets, and defaults of measure, compare and pr, \
            found in the current folder or given with \(ConfigOptions.config). Options given on the command \
            line override it, and it overrides the defaults.
            """)
        out.raw(".El")

        out.macro("Sh", "EXIT STATUS")
        out.raw(".Bl -tag -width Ds")
        for (code, meaning) in page.exitCodes {
            out.raw(".It " + argument(String(code)))
            out.text(meaning.prefix(1).uppercased() + meaning.dropFirst() + ".")
        }
        out.raw(".El")

        out.macro("Sh", "EXAMPLES")
        for (what, line) in examples {
            out.text(what + ":")
            out.raw(
                ".Dl "
                    + line.split(separator: " ").map { argument(String($0)).replacing("-", with: "\\-") }
                    .joined(separator: " "))
        }

        out.macro("Sh", "SEE ALSO")
        out.raw(".Xr eu-readelf 1 ,")
        out.raw(".Xr hyperfine 1 ,")
        out.raw(".Xr readelf 1 ,")
        out.raw(".Xr valgrind 1 ,")
        out.raw(".Xr ld.so 8")
        return out.text
    }

    static let examples: [(String, String)] = [
        ("Audit a program and its load closure", "premain audit /usr/bin/git"),
        ("Measure 30 launches", "premain measure \(MeasureCommand.runs) 30 -- /usr/bin/git version"),
        ("Compare two builds", "premain compare base/git head/git -- version"),
        ("Judge a build and gate on findings", "premain check \(ConfigOptions.failOn) error .build/release"),
    ]

    // MARK: Synopsis

    /// COMMANDS: each command's abstract, discussion, arguments and options.
    private static func commands(_ commands: [CommandSpec], into out: inout Lines) {
        out.macro("Sh", "COMMANDS")
        for command in commands {
            out.macro("Ss", "premain \(command.name)")
            out.text(command.abstract)
            if !command.discussion.isEmpty {
                for paragraph in command.discussion.split(separator: "\n", omittingEmptySubsequences: true) {
                    out.macro("Pp")
                    out.text(String(paragraph))
                }
            }
            if !command.argumentRows.isEmpty {
                out.macro("Pp")
                out.text("Arguments:")
                out.raw(".Bl -tag -width Ds")
                for argument in command.argumentRows {
                    out.raw(".It " + argumentWords(argument.name).joined(separator: " "))
                    out.text(argument.help)
                }
                out.raw(".El")
            }
            out.macro("Pp")
            out.text("Options:")
            optionList(command.allOptions, into: &out)
        }
    }

    private static func synopsis(_ term: UsageTerm, into out: inout Lines) {
        switch term {
        case .option(let option):
            out.raw(".Op " + optionWords(option.spec, repeating: true).joined(separator: " "))
        case .required(let option):
            out.raw("." + optionWords(option.spec, repeating: true).joined(separator: " "))
        case .either(let options):
            out.raw(
                ".Op "
                    + options.map { optionWords($0.spec, repeating: false).joined(separator: " ") }
                    .joined(separator: " | "))
        case .argument(let spec):
            out.raw("." + argumentWords(spec.usage).joined(separator: " "))
        case .alternatives(let sequences):
            out.raw(".Po")
            for (index, sequence) in sequences.enumerated() {
                if index > 0 { out.raw("|") }
                for term in sequence { synopsis(term, into: &out) }
            }
            out.raw(".Pc")
        case .word(let word):
            var text = Substring(word)
            let optional = text.hasPrefix("[") && text.hasSuffix("]")
            if optional { text = text.dropFirst().dropLast() }
            let words = argumentWords(String(text))
            out.raw(optional ? ".Op " + words.joined(separator: " ") : "." + words.joined(separator: " "))
        }
    }

    /// `Fl -runs Ar n`: an option with its values as macro words (the first a macro name).
    private static func optionWords(_ option: OptionSpec, repeating: Bool) -> [String] {
        ["Fl", argument(String(option.name.dropFirst()))] + option.valueNames.flatMap { ["Ar", argument($0)] }
            + (repeating && option.repeatable ? ["..."] : [])
    }

    /// `<file-or-folder>...` → `Ar file-or-folder ...`; `add <report>` → `Cm add Ar report`;
    /// `--` → `Fl -`.
    private static func argumentWords(_ usage: String) -> [String] {
        usage.split(separator: " ").flatMap { word -> [String] in
            if word == "--" { return ["Fl", "-"] }
            if word.hasPrefix("["), word.hasSuffix("]"), word.count > 2 {
                return ["Op"] + argumentWords(String(word.dropFirst().dropLast()))
            }
            if word.hasPrefix("<") {
                let repeats = word.hasSuffix("...")
                let name = word.dropFirst().prefix { $0 != ">" }
                return ["Ar", argument(String(name))] + (repeats ? ["..."] : [])
            }
            return ["Cm", argument(String(word))]
        }
    }

    // MARK: Options

    private static func optionList(_ options: [OptionSpec], into out: inout Lines) {
        out.raw(".Bl -tag -width Ds")
        for option in options {
            var words = optionWords(option, repeating: false)
            if let short = option.short {
                words = ["Fl", argument(String(short.dropFirst())), ","] + words
            }
            out.raw(".It " + words.joined(separator: " "))
            out.text(option.helpText)
        }
        out.raw(".El")
    }

    // MARK: Escaping

    /// A word as a macro argument: quoted when it has a space, `\&` before a word the
    /// macro would read as a macro name or a delimiter, backslashes and quotes escaped.
    static func argument(_ word: String) -> String {
        var text = word.replacing("\\", with: "\\e").replacing("\"", with: "\\(dq")
        if text.contains(where: { $0 == " " || $0 == "\t" }) { return "\"" + text + "\"" }
        if text.isEmpty { return "\"\"" }
        if let first = text.first, ".,;:()[]|!?'".contains(first) || looksLikeMacro(text) { text = "\\&" + text }
        return text
    }

    /// `Ar`, `Fl`, `Nm`: a word mdoc would call as a macro (two or three letters, a capital first).
    private static func looksLikeMacro(_ word: String) -> Bool {
        (2...3).contains(word.count) && word.first?.isUppercase == true && word.dropFirst().allSatisfy(\.isLowercase)
    }

    /// Text lines (never a macro) at most 80 columns wide where the words allow, each sentence
    /// starting a line as mdoc wants, and a line that would start with a control character
    /// (`.` or `'`) guarded by `\&`.
    static func textLines(_ text: String) -> [String] {
        let escaped = text.replacing("\\", with: "\\e")
        var lines: [String] = []
        var current = ""
        let words = escaped.split(separator: " ", omittingEmptySubsequences: true)
        for (index, word) in words.enumerated() {
            if !current.isEmpty, current.utf8.count + 1 + word.utf8.count > 78 {
                lines.append(current)
                current = ""
            }
            let next = index + 1 < words.count ? words[index + 1] : nil
            // `incl.\&`: an abbreviation inside a line does not end a sentence.
            let shown = next != nil && abbreviations.contains(String(word)) ? word + "\\&" : String(word)
            current += current.isEmpty ? shown : " " + shown
            if word.hasSuffix("."), let next, next.first?.isUppercase == true, !abbreviations.contains(String(word)) {
                lines.append(current)
                current = ""
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map { $0.hasPrefix(".") || $0.hasPrefix("'") ? "\\&" + $0 : $0 }
    }

    private static let abbreviations: Set<String> = ["e.g.", "i.e.", "etc.", "vs.", "incl.", "cf.", "approx."]

    private struct Lines {
        var text = ""

        mutating func raw(_ line: String) { text += line + "\n" }

        mutating func macro(_ name: String, _ arguments: String...) {
            raw(([".\(name)"] + arguments.map(ManualPage.argument)).joined(separator: " "))
        }

        mutating func text(_ paragraph: String) {
            for line in ManualPage.textLines(paragraph) { raw(line) }
        }
    }
}
