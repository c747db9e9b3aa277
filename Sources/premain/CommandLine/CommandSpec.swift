import PremainRender

/// One option of a command: a flag (`valueName == nil`) or an option with a value.
struct OptionSpec {
    /// Every spelling: `["-f", "--format"]`. The last one is the canonical key.
    var names: [String]
    var valueName: String?
    var help: String
    var repeatable = false

    var key: String { names.last ?? "" }
    var isFlag: Bool { valueName == nil }
}

/// A positional argument, for help text.
struct ArgumentSpec {
    var name: String
    var help: String
}

/// What a command accepts and how it explains itself, in swift-argument-parser's layout.
struct CommandSpec {
    var name: String
    var abstract: String
    var usage: String
    var discussion: String = ""
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []
    /// Everything after `--` is passed through (the command to run), not parsed.
    var acceptsPassthrough = false

    static let help = OptionSpec(names: ["-h", "--help"], valueName: nil, help: "Show help information.")

    var allOptions: [OptionSpec] { options + [Self.help] }

    func option(named name: String) -> OptionSpec? {
        allOptions.first { $0.names.contains(name) }
    }

    /// The `--help` text.
    func helpText() -> String {
        var out = Self.hanging("OVERVIEW: ", abstract) + "\n"
        if !discussion.isEmpty {
            let paragraphs = discussion.split(separator: "\n", omittingEmptySubsequences: false)
            out += "\n" + paragraphs.map { Self.wrap(String($0), width: 98).joined(separator: "\n") }
                .joined(separator: "\n") + "\n"
        }
        let command = "premain \(name) "
        let usageIndent = usage.hasPrefix(command) ? "USAGE: " + command : "USAGE: "
        out += "\n" + Self.hanging(usageIndent, String(usage.dropFirst(usageIndent.count - 7))) + "\n"
        if !arguments.isEmpty {
            out += "\nARGUMENTS:\n"
            for argument in arguments { out += Self.row(argument.name, argument.help) }
        }
        out += "\nOPTIONS:\n"
        for option in allOptions {
            var label = option.names.joined(separator: ", ")
            if let value = option.valueName { label += " <\(value)>" }
            out += Self.row(label, option.help)
        }
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
