/// Reads demangled Swift names and makes shorter forms of them that people still recognise:
/// private discriminators, generic clauses, parameter types and the result type go, in that
/// order; the module, the owning types, the base name and the argument labels stay. Pure
/// string work on what a demangler printed, so renderers and rules share it.
public enum SwiftName {
    /// The prefix Swift's demangler puts before a lazy global's once-function.
    public static let onceFunctionPrefix = "one-time initialization function for "
    /// The prefix of a lazy global's once-token.
    public static let onceTokenPrefix = "one-time initialization token for "

    /// A function name split at its parameter list: `base` (with its generic clause), the
    /// parameters as printed, and what follows the list (" async throws -> A").
    public struct Signature: Equatable, Sendable {
        public var base: String
        public var parameters: [String]
        public var trailer: String

        /// Argument labels, "_" for an unlabeled parameter.
        public var labels: [String] {
            parameters.map { parameter in
                guard let colon = SwiftName.topLevelIndex(of: ":", in: parameter) else { return "_" }
                let label = parameter[..<colon].trimmingSpaces
                return label.isEmpty ? "_" : label
            }
        }

        /// `base` without generic clauses, then the labels: "math.average(kind:values:)".
        public var selector: String {
            SwiftName.withoutGenericClauses(base) + "(" + labels.map { $0 + ":" }.joined() + ")"
        }
    }

    /// The parameter list of the function `name` names, or `nil` when `name` has none
    /// (a variable, a type) or its brackets do not balance.
    public static func signature(_ name: String) -> Signature? {
        let characters = Array(name)
        var depth = 0
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "(" && depth == 0 && index > 0 && isNameEnd(characters[index - 1]) {
                guard let close = closing(characters, from: index) else { return nil }
                let inside = String(characters[(index + 1)..<close])
                return Signature(
                    base: String(characters[..<index]), parameters: splitTopLevel(inside),
                    trailer: String(characters[(close + 1)...]))
            }
            depth += delta(characters, at: index)
            if depth < 0 { return nil }
            index += 1
        }
        return nil
    }

    /// What a default-argument generator's demangled name ("default argument 1 of
    /// math.Stats.average(kind: Swift.String, values: [Swift.Double]) -> Swift.Double") is
    /// about: the parameter's index and label and the function's selector
    /// ("math.Stats.average(kind:values:)"); `nil` for other names.
    public static func defaultArgument(_ demangled: String) -> (index: Int, label: String?, function: String)? {
        let prefix = "default argument "
        guard demangled.hasPrefix(prefix) else { return nil }
        let rest = demangled.dropFirst(prefix.count)
        guard let space = rest.firstIndex(of: " "), let index = Int(rest[..<space]),
            rest[space...].hasPrefix(" of ")
        else { return nil }
        let function = String(rest[space...].dropFirst(4))
        guard let signature = signature(function) else { return (index, nil, function) }
        let labels = signature.labels
        let label = index >= 0 && index < labels.count && labels[index] != "_" ? labels[index] : nil
        return (index, label, signature.selector)
    }

    /// The name people read for a Swift start-up suspect: the variable of a lazy global's
    /// once-function ("math.Math.Statistics.configuration"); "values of
    /// math.Stats.average(kind:values:)" for a default argument ("argument 0 of …" when it has
    /// no label). Other names come back unchanged.
    public static func readable(_ demangled: String) -> String {
        if demangled.hasPrefix(onceFunctionPrefix) { return String(demangled.dropFirst(onceFunctionPrefix.count)) }
        if let argument = defaultArgument(demangled) {
            let what = argument.label.map { "`\($0)`" } ?? "argument \(argument.index)"
            return "\(what) of \(argument.function)"
        }
        return demangled
    }

    /// The name every report gives a traced, counted or suspected function: for a Swift symbol
    /// (`$s…`) `readable` of its demangled name, its parameter list as labels
    /// ("Tool.Options.init(verbose:color:)"), or "(…137 labels…)" past `maxLabels`; the
    /// demangled name of other symbols (C++); the symbol itself when it is not mangled.
    public static func display(symbol: String, demangled: String?, maxLabels: Int = 8) -> String {
        guard let demangled else { return symbol }
        let isSwift =
            symbol.hasPrefix("$s") || symbol.hasPrefix("_$s") || symbol.hasPrefix("$S") || symbol.hasPrefix("_T0")
        guard isSwift else { return demangled }
        if demangled.hasPrefix(onceFunctionPrefix) { return readable(demangled) }
        if let argument = defaultArgument(demangled) {
            let what = argument.label.map { "`\($0)`" } ?? "argument \(argument.index)"
            return "\(what) of \(shortened(argument.function, maxLabels: maxLabels))"
        }
        guard let signature = signature(withoutPrivateDiscriminators(demangled)) else { return demangled }
        return shortened(signature.selector, maxLabels: maxLabels)
    }

    /// "Options.init(…137 labels…)" for a selector with more than `maxLabels` labels.
    static func shortened(_ selector: String, maxLabels: Int) -> String {
        guard let signature = signature(selector) else { return selector }
        let labels = signature.parameters.joined(separator: ",").filter { $0 == ":" }.count
        guard labels > maxLabels else { return selector }
        return withoutGenericClauses(signature.base) + "(…\(labels) labels…)"
    }

    /// Shorter and shorter forms of `name`, each still naming the same thing, the first being
    /// `name` itself: without private discriminators ("(x in _9A…)" → "x"), without generic
    /// clauses, with argument labels for parameter lists, without what follows the list.
    public static func shorterForms(_ name: String) -> [String] {
        var forms = [name]
        func add(_ form: String) { if form != forms.last { forms.append(form) } }
        let visible = withoutPrivateDiscriminators(name)
        add(visible)
        let plain = withoutGenericClauses(visible)
        add(plain)
        add(withSelectors(plain))
        return forms
    }

    /// `name` with every "(x in _<hex>)" replaced by "x".
    public static func withoutPrivateDiscriminators(_ name: String) -> String {
        var result = ""
        var rest = Substring(name)
        while let open = rest.firstIndex(of: "(") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: ")"), let marker = after[..<close].firstRange(of: " in _"),
                after[marker.upperBound..<close].allSatisfy(\.isHexDigit), !after[..<marker.lowerBound].contains("(")
            {
                result += after[..<marker.lowerBound]
                rest = after[after.index(after: close)...]
            } else {
                result += "("
                rest = after
            }
        }
        return result + rest
    }

    /// `name` without generic clauses ("<A where A: Swift.Hashable>"); "->" is no bracket.
    public static func withoutGenericClauses(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        var depth = 0
        for (index, character) in characters.enumerated() {
            if character == "<" {
                depth += 1
            } else if character == ">" && !(index > 0 && characters[index - 1] == "-") && depth > 0 {
                depth -= 1
            } else if depth == 0 {
                result.append(character)
            }
        }
        return depth == 0 ? result : name
    }

    /// Every parameter list in `name` ("f(kind: Swift.String) -> Swift.Int") replaced by its
    /// labels ("f(kind:)"), and the result dropped; "default argument 1 of " and similar
    /// prefixes stay.
    static func withSelectors(_ name: String) -> String {
        if let argument = name.firstRange(of: " of "), name.hasPrefix("default argument "),
            let signature = signature(String(name[argument.upperBound...]))
        {
            return String(name[..<argument.upperBound]) + signature.selector + inlinedSuffix(signature.trailer)
        }
        // Labels only ("f(kind:values:)") already: nothing to drop.
        guard let signature = signature(name), signature.parameters.contains(where: { $0.contains(": ") })
        else { return name }
        return signature.selector + inlinedSuffix(signature.trailer)
    }

    /// " (inlined into g())" kept from a trailer " -> A (inlined into g() -> ())", the caller
    /// shortened the same way; "" when the trailer names no caller.
    static func inlinedSuffix(_ trailer: String) -> String {
        let marker = " (inlined into "
        guard let range = trailer.firstRange(of: marker), trailer.hasSuffix(")") else { return "" }
        let caller = String(trailer[range.upperBound..<trailer.index(before: trailer.endIndex)])
        let plain = withoutGenericClauses(caller)
        return marker + (signature(plain)?.selector ?? plain) + ")"
    }

    // MARK: Brackets

    /// A character that can end the name before a parameter list: "f(", "init<A>(", "`x`(".
    static func isNameEnd(_ character: Character) -> Bool {
        character.isLetter || character.isNumber || character == "_" || character == ">" || character == "`"
    }

    /// +1 for an opening bracket, -1 for a closing one ("->" is not one), 0 otherwise.
    static func delta(_ characters: [Character], at index: Int) -> Int {
        switch characters[index] {
        case "(", "[", "<": return 1
        case ")", "]": return -1
        case ">": return index > 0 && characters[index - 1] == "-" ? 0 : -1
        default: return 0
        }
    }

    /// The index of the bracket that closes the one at `open`, or `nil`.
    static func closing(_ characters: [Character], from open: Int) -> Int? {
        var depth = 0
        for index in open..<characters.count {
            depth += delta(characters, at: index)
            if depth == 0 { return index }
            if depth < 0 { return nil }
        }
        return nil
    }

    /// `text` split at commas outside brackets, each part trimmed; `[]` for blank text.
    static func splitTopLevel(_ text: String) -> [String] {
        let characters = Array(text)
        guard characters.contains(where: { $0 != " " }) else { return [] }
        var parts: [String] = []
        var current = ""
        var depth = 0
        for index in characters.indices {
            let character = characters[index]
            if character == "," && depth == 0 {
                parts.append(current.trimmingSpaces)
                current = ""
                continue
            }
            depth += delta(characters, at: index)
            current.append(character)
        }
        parts.append(current.trimmingSpaces)
        return parts
    }

    /// The first `character` outside brackets in `text`.
    static func topLevelIndex(of wanted: Character, in text: String) -> String.Index? {
        let characters = Array(text)
        var depth = 0
        for index in characters.indices {
            if characters[index] == wanted && depth == 0 { return text.index(text.startIndex, offsetBy: index) }
            depth += delta(characters, at: index)
        }
        return nil
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var slice = Substring(self)
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return String(slice)
    }
}
