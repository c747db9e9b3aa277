// Options are declared once, as swift-argument-parser declares them (`@Option(name:
// .shortAndLong, help: "…") var warmup = 1`): one typed declaration holds the names, the kind
// of value, the default, the range and the help, and the parser, the usage line, `--help`
// (and a man page or shell completions) are generated from it. swift-argument-parser itself
// cannot be fetched here, so this is the small part of it premain needs, written by hand.

/// What an option takes, for the parser's checks and for help, man page and completions.
enum ValueKind: Sendable, Equatable {
    /// No value: the option is there or not.
    case flag
    /// A whole number in the range.
    case integer(ClosedRange<Int>)
    /// A finite number in the range.
    case number(ClosedRange<Double>)
    /// One of these words (an enum's raw values).
    case choice([String])
    /// Free text: a name, a revision, a pattern.
    case text
    /// A path (a shell completes it as a file or a folder).
    case path(PathKind)
    /// A shell command line, run by /bin/sh.
    case command

    enum PathKind: Sendable, Equatable {
        case file
        case folder
        /// A file or a folder.
        case any
    }
}

/// One option as the parser and the help see it, whatever the type of its value.
struct OptionSpec: Sendable {
    /// The canonical spelling (`--runs`): the key of its value, and the name in messages.
    var name: String
    /// The one-letter spelling (`-r`), if any.
    var short: String?
    /// One name per value it takes (`["n"]`, `["base", "head"]`); `[]` for a flag.
    var valueNames: [String]
    var kind: ValueKind
    /// What it does: one sentence without its final period; the default and the range are
    /// added to it by `helpText` (`"Counted runs"` → `"Counted runs (default: 10; 1 to 100000)."`).
    var abstract: String
    /// The default as help shows it; `nil` shows none.
    var defaultText: String?
    /// For `.choice`: a note per word, shown after it in help (`html (one self-contained page)`).
    var choiceNotes: [String: String] = [:]
    var repeatable = false

    /// Every spelling, short first: what the parser accepts and help lists.
    var names: [String] { (short.map { [$0] } ?? []) + [name] }
    var isFlag: Bool { kind == .flag }

    /// `-r, --runs <n>`: the label of its help row.
    var label: String {
        names.joined(separator: ", ") + valueNames.map { " <\($0)>" }.joined()
    }

    /// `--runs <n>`, with ` ...` when repeatable: how the usage line writes it.
    var usage: String {
        name + valueNames.map { " <\($0)>" }.joined() + (repeatable ? " ..." : "")
    }

    /// The help of its row: the abstract, the choices with their notes, the default and the range.
    var helpText: String {
        var details: [String] = []
        if let defaultText, !isChoice { details.append("default: \(defaultText)") }
        switch kind {
        case .integer(let range): details.append(Self.describe(range.lowerBound, range.upperBound, max: Int.max))
        case .number(let range): details.append(Self.describe(range.lowerBound, range.upperBound, max: .infinity))
        case .choice(let words):
            let shown = words.map { word -> String in
                var notes = choiceNotes[word].map { [$0] } ?? []
                if word == defaultText { notes.insert("default", at: 0) }
                return notes.isEmpty ? word : "\(word) (\(notes.joined(separator: "; ")))"
            }
            let list =
                shown.count > 1
                ? shown.dropLast().joined(separator: ", ") + " or " + (shown.last ?? "") : shown.joined()
            return "\(abstract): \(list)."
        default: break
        }
        return details.isEmpty ? abstract + "." : "\(abstract) (\(details.joined(separator: "; ")))."
    }

    private var isChoice: Bool {
        if case .choice = kind { return true }
        return false
    }

    /// `"1 to 100000"`, `"0 or more"` for an open top.
    static func describe<N: Comparable & CustomStringConvertible>(_ low: N, _ high: N, max: N) -> String {
        high == max ? "\(display(low)) or more" : "\(display(low)) to \(display(high))"
    }

    /// A number as written on a command line: `0.5`, `30`, `0.001`.
    /// `value.description`, not `"\(value)"`: interpolating a generic value asks the runtime
    /// which protocols its type conforms to, a scan of every conformance the first time (0.5 M
    /// instructions at each start of a command with a numeric default).
    static func display<N: CustomStringConvertible>(_ value: N) -> String {
        if let number = value as? Double, number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return value.description
    }

    /// The parser's check of one value: `nil` when it is good, else the usage error's message.
    func problem(with text: String) -> String? {
        switch kind {
        case .integer(let range):
            guard let number = Int(text), range.contains(number) else {
                return
                    "\(name) takes a whole number from \(Self.display(range.lowerBound)) to \(Self.display(range.upperBound)), not '\(text)'"
            }
        case .number(let range):
            guard let number = Double(text), number.isFinite, range.contains(number) else {
                return
                    "\(name) takes a number from \(Self.display(range.lowerBound)) to \(Self.display(range.upperBound)), not '\(text)'"
            }
        case .choice(let words):
            guard words.contains(text) else {
                return NearestName.message(
                    "\(name) must be one of \(words.joined(separator: ", ")), not '\(text)'", for: text, among: words)
            }
        case .flag, .text, .path, .command:
            break
        }
        return nil
    }
}

/// Anything a command lists among its options: a typed `Option`, read by subscript.
protocol DeclaredOption: Sendable, CustomStringConvertible {
    var spec: OptionSpec { get }
}

extension DeclaredOption {
    /// The canonical name, for messages: `"\(Self.runs) takes …"`.
    var description: String { spec.name }
}

/// An option whose value reads as a `Value` (`arguments[MeasureCommand.runs]` is an `Int`);
/// `Value` is optional when the option has no default, an array when it repeats. The
/// parser has checked every given value against the declaration's kind and range before
/// the command reads it, so reading never fails.
struct Option<Value: Sendable>: DeclaredOption {
    let spec: OptionSpec
    /// The value when the option is not given.
    let defaultValue: Value
    /// The value from the words given for it (the last one counts unless it repeats).
    let read: @Sendable ([String]) -> Value

    init(spec: OptionSpec, default defaultValue: Value, read: @escaping @Sendable ([String]) -> Value) {
        self.spec = spec
        self.defaultValue = defaultValue
        self.read = read
    }
}

extension Option where Value == Bool {
    /// A flag: `true` when given.
    static func flag(_ name: String, short: String? = nil, help: String) -> Self {
        Option(
            spec: OptionSpec(name: name, short: short, valueNames: [], kind: .flag, abstract: help),
            default: false, read: { _ in true })
    }
}

/// A number an option takes: a whole number or a finite one, in a range.
protocol NumericOptionValue: LosslessStringConvertible, Comparable, Sendable {
    static func kind(_ range: ClosedRange<Self>) -> ValueKind
}

extension Int: NumericOptionValue {
    static func kind(_ range: ClosedRange<Int>) -> ValueKind { .integer(range) }
}

extension Double: NumericOptionValue {
    static func kind(_ range: ClosedRange<Double>) -> ValueKind { .number(range) }
}

extension Option where Value: NumericOptionValue {
    /// A number with a default.
    init(
        _ name: String, short: String? = nil, value: String, help: String, default fallback: Value,
        in range: ClosedRange<Value>, defaultText: String? = nil
    ) {
        self.init(
            spec: OptionSpec(
                name: name, short: short, valueNames: [value], kind: Value.kind(range), abstract: help,
                defaultText: defaultText ?? OptionSpec.display(fallback)),
            default: fallback, read: { $0.last.flatMap { Value($0) } ?? fallback })
    }
}

extension Option {
    /// A number without a default: `nil` when not given.
    init<Number: NumericOptionValue>(
        _ name: String, short: String? = nil, value: String, help: String,
        in range: ClosedRange<Number>, defaultText: String? = nil
    ) where Value == Number? {
        self.init(
            spec: OptionSpec(
                name: name, short: short, valueNames: [value], kind: Number.kind(range), abstract: help,
                defaultText: defaultText),
            default: nil, read: { $0.last.flatMap { Number($0) } })
    }
}

extension Option where Value == String? {
    /// A text or path option without a default (or with one the command supplies).
    init(
        _ name: String, short: String? = nil, value: String, kind: ValueKind = .text, help: String,
        defaultText: String? = nil
    ) {
        self.init(
            spec: OptionSpec(
                name: name, short: short, valueNames: [value], kind: kind, abstract: help,
                defaultText: defaultText),
            default: nil, read: { $0.last })
    }
}

extension Option where Value == [String] {
    /// An option given any number of times; `[]` when absent.
    static func repeating(
        _ name: String, value: String, kind: ValueKind = .text, help: String,
        defaultText: String? = nil
    ) -> Self {
        Option(
            spec: OptionSpec(
                name: name, short: nil, valueNames: [value], kind: kind, abstract: help,
                defaultText: defaultText, repeatable: true),
            default: [], read: { $0 })
    }

    /// An option that takes several words at once (`--commits <base> <head>`); `[]` when absent.
    static func words(_ name: String, values: [String], kind: ValueKind = .text, help: String) -> Self {
        Option(
            spec: OptionSpec(name: name, short: nil, valueNames: values, kind: kind, abstract: help),
            default: [], read: { $0 })
    }
}

/// The words an enum option accepts: its raw values, each with an optional note for help.
protocol OptionChoice: RawRepresentable<String>, CaseIterable, Sendable {
    /// Shown after the word in help; `nil` for none.
    var note: String? { get }
}

extension OptionChoice {
    var note: String? { nil }

    /// Every word, in declaration order.
    static var words: [String] { allCases.map(\.rawValue) }

    /// The notes by word.
    static var notes: [String: String] {
        Dictionary(uniqueKeysWithValues: allCases.compactMap { choice in choice.note.map { (choice.rawValue, $0) } })
    }
}

extension Option where Value: OptionChoice {
    init(_ name: String, short: String? = nil, value: String, help: String, default fallback: Value) {
        self.init(
            spec: OptionSpec(
                name: name, short: short, valueNames: [value], kind: .choice(Value.words),
                abstract: help, defaultText: fallback.rawValue, choiceNotes: Value.notes),
            default: fallback, read: { $0.last.flatMap { Value(rawValue: $0) } ?? fallback })
    }
}

extension Option {
    /// An enum option without a default.
    static func choice<Choice: OptionChoice>(_ name: String, value: String, help: String) -> Self
    where Value == Choice? {
        Option(
            spec: OptionSpec(
                name: name, short: nil, valueNames: [value], kind: .choice(Choice.words),
                abstract: help, choiceNotes: Choice.notes),
            default: nil, read: { $0.last.flatMap { Choice(rawValue: $0) } })
    }
}
