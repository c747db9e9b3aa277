import PremainRender

/// What may follow `--`: a command to run (`-- <command> [<argument>...]`) or arguments for
/// the program premain launches (`-- <argument>...`).
struct Passthrough: Sendable {
    /// The first word after `--`: `<command>` (kind `.command`) or `<argument>` (repeating).
    var first: ArgumentSpec
    /// Whether `--` and its words must be given (`field run`); else the usage line shows them
    /// in brackets and the command decides (a declared launch can stand in for a command).
    var required = false

    /// `-- <command> [<argument>...]`, `-- <argument>...`.
    var usage: String { "-- " + first.usage + (first.kind == .command ? " [<argument>...]" : "") }
}

/// One way to call a command, for a command that has several: chosen by its action word
/// (`history add <report>`), or by the options it needs (`pr --base … --head …` or
/// `pr --commits … --build … --artifact …`). Each form declares what it takes once; the usage
/// line, the help rows, the man page, the completions and the parser's checks (a missing or
/// stray argument, an option that goes with another form) are made from it.
struct CommandForm: Sendable {
    /// The word that chooses this form (`add`), with what it does; `nil` for a form chosen by
    /// its `required` options.
    var action: ArgumentSpec?
    /// Options this form needs, all of them (any one given chooses the form).
    var required: [any DeclaredOption] = []
    /// Options only this form takes (an option may belong to several forms).
    var options: [any DeclaredOption] = []
    /// Its positional arguments, after the action word.
    var arguments: [ArgumentSpec] = []
    var passthrough: Passthrough?

    /// `premain history add` or `--commits`: how messages name the form.
    func label(command: String) -> String {
        if let action { return "'premain \(command) \(action.name)'" }
        return required.first.map(\.description) ?? "premain \(command)"
    }

    func takes(_ option: some DeclaredOption) -> Bool {
        (required + options).contains { $0.spec.name == option.spec.name }
    }

    /// The form's part of the usage line: `add [--commit <commit>] <report>`.
    var usageTerms: [UsageTerm] {
        var terms: [UsageTerm] = action.map { [.word($0.name)] } ?? []
        terms += required.map { .required($0) } + options.map { .option($0) }
        terms += CommandForm.argumentTerms(arguments, passthrough: passthrough)
        return terms
    }

    /// `<base> <head>`, `[<new>]`, `[<folder>...]`, then `[-- <argument>...]`.
    static func argumentTerms(_ arguments: [ArgumentSpec], passthrough: Passthrough?) -> [UsageTerm] {
        var terms: [UsageTerm] = arguments.map { $0.optional ? .word("[\($0.usage)]") : .argument($0) }
        if let passthrough { terms.append(.word(passthrough.required ? passthrough.usage : "[\(passthrough.usage)]")) }
        return terms
    }
}

extension CommandSpec {
    /// The forms the parser chooses among: the declared ones (with the command's arguments and
    /// `--` where a form declares none of its own), or the command's one form.
    var effectiveForms: [CommandForm] {
        guard !forms.isEmpty else { return [CommandForm(arguments: arguments, passthrough: passthrough)] }
        return forms.map { form in
            var form = form
            if form.arguments.isEmpty { form.arguments = arguments }
            if form.passthrough == nil { form.passthrough = passthrough }
            return form
        }
    }

    /// Chooses the form of a parsed command line and checks what the declarations say: the
    /// action word, the options the form needs, options that go with another form, the count
    /// of positional arguments, and a required `--`. Sets `parsed.action` and leaves in
    /// `parsed.positionals` the arguments after the action word.
    func checkForm(_ parsed: inout ParsedArguments) throws(UsageError) {
        let forms = effectiveForms
        var positionals = parsed.positionals
        let form: CommandForm
        let actions = forms.compactMap(\.action?.name)
        if !actions.isEmpty {
            guard let word = positionals.first else { throw missingAction }
            guard let chosen = forms.first(where: { $0.action?.name == word }) else {
                throw UsageError(
                    message: NearestName.message(
                        "unknown action '\(TextSafety.display(word))'; use \(actionList)", for: word,
                        among: actions))
            }
            form = chosen
            parsed.action = word
            positionals.removeFirst()
        } else if forms.count > 1 {
            form = try chooseByRequiredOptions(forms, parsed)
        } else {
            form = forms[0]
        }
        for other in forms {
            for option in other.required + other.options where parsed.has(option) && !form.takes(option) {
                throw UsageError(message: "\(option) goes with \(other.label(command: name))")
            }
        }
        let needed = form.arguments.prefix { !$0.optional }.count
        if positionals.count < needed {
            throw UsageError(message: "missing expected argument '\(form.arguments[positionals.count].name)'")
        }
        for (word, argument) in zip(positionals, form.arguments) {
            guard case .choice(let words) = argument.kind, !words.contains(word) else { continue }
            let message = "\(argument.name) must be \(Self.alternatives(words)), not '\(TextSafety.display(word))'"
            throw UsageError(message: NearestName.message(message, for: word, among: words))
        }
        if form.arguments.last?.repeating != true, positionals.count > form.arguments.count {
            let stray = "unexpected argument '\(TextSafety.display(positionals[form.arguments.count]))'"
            throw UsageError(
                message: form.passthrough == nil ? stray : stray + "; put the program's arguments after '--'")
        }
        if !parsed.passthrough.isEmpty, form.passthrough == nil {
            let owners = forms.filter { $0.passthrough != nil }.map { $0.label(command: name) }
            throw UsageError(message: "'--' and what follows are for \(Self.alternatives(owners)) only")
        }
        if let passthrough = form.passthrough, passthrough.required, parsed.passthrough.isEmpty {
            throw UsageError(message: "missing expected argument '\(passthrough.first.name)' after '--'")
        }
        parsed.positionals = positionals
    }

    /// The form whose required options are given: the one whose first option is (`--commits`
    /// chooses the commits form, `--build` alone then needs it), all of its options.
    private func chooseByRequiredOptions(_ forms: [CommandForm], _ parsed: ParsedArguments) throws(UsageError)
        -> CommandForm
    {
        let keyed = forms.filter { $0.required.first.map { parsed.has($0) } ?? false }
        if keyed.count > 1, let mine = keyed[0].required.first, let theirs = keyed[1].required.first {
            throw UsageError(message: "\(mine) and \(theirs) exclude each other")
        }
        guard let form = keyed.first ?? forms.first(where: { $0.required.contains { parsed.has($0) } }) else {
            let ways = forms.map { form in Self.alternatives(form.required.map(\.spec.usage), joiner: "and") }
            throw UsageError(message: "give " + ways.joined(separator: ", or "))
        }
        if let missing = form.required.first(where: { !parsed.has($0) }),
            let present = form.required.first(where: { parsed.has($0) })
        {
            throw UsageError(message: "\(present) needs \(missing.spec.usage)")
        }
        return form
    }

    /// `missing expected argument 'add' or 'show'`: no action word where the forms need one.
    var missingAction: UsageError { UsageError(message: "missing expected argument " + actionList) }

    /// The forms' action words as messages list them: `'add' or 'show'`.
    private var actionList: String { Self.alternatives(forms.compactMap(\.action).map { "'\($0.name)'" }) }

    /// `'a', 'b' or 'c'`.
    static func alternatives(_ words: [String], joiner: String = "or") -> String {
        guard let last = words.last, words.count > 1 else { return words.joined() }
        return words.dropLast().joined(separator: ", ") + " \(joiner) " + last
    }
}
