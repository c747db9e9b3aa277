/// The expression syntax `--ready` accepts, read into a tree that `PatternProgram` compiles for
/// a matcher whose work is linear in the line (a Pike VM): literals, `.`, classes (`[a-z]`,
/// `[^…]`, `[[:alpha:]]`, `\d \w \s \h \v \R` and their negations), anchors (`^ $ \A \z \Z \b \B`),
/// groups (`(…)`, `(?:…)`, named), alternation, the quantifiers `* + ? {n} {n,} {n,m}` (lazy or
/// not: the answer is the same), `\Q…\E`, comments `(?#…)` and the options `i s m n U`.
///
/// What needs backtracking or more than one pass is refused with a message saying so:
/// back-references, lookahead and lookbehind, atomic groups, possessive quantifiers,
/// conditionals, recursion and subroutine calls, backtracking verbs, `\K`, `\G`, and Unicode
/// properties (`\p{…}`), which this reading does not know.
indirect enum PatternNode: Equatable, Sendable {
    case empty
    /// One character; `caseless` under `(?i)`.
    case character(Character, caseless: Bool)
    /// `.`: any character but a newline, or any at all under `(?s)` (`\X`).
    case any(newline: Bool)
    case set(PatternClass)
    case assertion(PatternAssertion)
    case sequence([PatternNode])
    case choice([PatternNode])
    /// `max` is `nil` for no upper bound.
    case repetition(PatternNode, min: Int, max: Int?)
}

/// A position a pattern may require without consuming a character.
enum PatternAssertion: Equatable, Sendable {
    /// `\A`, and `^` without `(?m)`.
    case inputStart
    /// `\z`, and `$` without `(?m)` (as in Swift's `Regex`, not before a final newline).
    case inputEnd
    /// `\Z`: the end, or before a newline that ends the line.
    case inputEndBeforeNewline
    /// `^` under `(?m)`: the start or after a newline.
    case lineStart
    /// `$` under `(?m)`: the end or before a newline.
    case lineEnd
    /// `\b`: between a word character (`\w`) and a character that is not one, or an end.
    case wordBoundary
    /// `\B`.
    case notWordBoundary
}

/// A named kind of character (`\d`, `[:alpha:]`), read from the character's Unicode properties.
enum CharacterProperty: Equatable, Sendable {
    case digit, word, whitespace, horizontalWhitespace, newline
    case alpha, alnum, lower, upper, punct, xdigit, blank, control, ascii

    /// The POSIX class names `[[:name:]]` this reading knows.
    static let posixNames: [String: CharacterProperty] = [
        "alpha": .alpha, "alnum": .alnum, "digit": .digit, "lower": .lower, "upper": .upper, "space": .whitespace,
        "blank": .blank, "punct": .punct, "xdigit": .xdigit, "word": .word, "cntrl": .control, "ascii": .ascii,
    ]

    func holds(for c: Character) -> Bool {
        switch self {
        case .digit: return c.unicodeScalars.first?.properties.generalCategory == .decimalNumber
        case .word: return c.isLetter || c.isNumber || c == "_"
        case .whitespace: return c.isWhitespace
        case .horizontalWhitespace: return c.isWhitespace && !c.isNewline
        case .newline: return c.isNewline
        case .alpha: return c.isLetter
        case .alnum: return c.isLetter || c.isNumber
        case .lower: return c.isLowercase
        case .upper: return c.isUppercase
        case .punct: return c.isPunctuation
        case .xdigit: return c.isHexDigit
        case .blank: return c == " " || c == "\t"
        case .control: return c.unicodeScalars.first?.properties.generalCategory == .control
        case .ascii: return c.isASCII
        }
    }
}

/// A bracketed class or a class escape: members, and whether it is negated.
struct PatternClass: Equatable, Sendable {
    enum Member: Equatable, Sendable {
        case character(Character)
        /// Characters of one scalar between these two, both included.
        case range(Unicode.Scalar, Unicode.Scalar)
        case property(CharacterProperty, negated: Bool)
    }

    var members: [Member]
    var negated = false
    var caseless = false

    /// Under `(?i)` a character also belongs when its other case is a listed character or in a
    /// listed range (as in Swift's `Regex`, properties such as `[:upper:]` are not case-folded).
    func contains(_ c: Character) -> Bool {
        var found = members.contains { $0.matches(c) }
        if !found, caseless {
            for variant in [c.lowercased(), c.uppercased()] where variant.count == 1 {
                guard let other = variant.first, other != c else { continue }
                if members.contains(where: { $0.isCased && $0.matches(other) }) {
                    found = true
                    break
                }
            }
        }
        return found != negated
    }
}

extension PatternClass.Member {
    /// True for the members `(?i)` folds: characters and ranges.
    var isCased: Bool {
        if case .property = self { return false }
        return true
    }

    func matches(_ c: Character) -> Bool {
        switch self {
        case .character(let member): return c == member
        case .range(let low, let high):
            let scalars = c.unicodeScalars
            guard scalars.count == 1, let scalar = scalars.first else { return false }
            return low.value <= scalar.value && scalar.value <= high.value
        case .property(let property, let negated): return property.holds(for: c) != negated
        }
    }
}

/// Reads an expression into a `PatternNode`, character by character. Throws a one-line
/// `PatternError` that names what is wrong or refused.
struct PatternParser {
    /// Groups nested deeper than this are refused (the tree is walked recursively).
    static let depthLimit = 200
    /// The largest count in `{n,m}`.
    static let countLimit = 1000

    struct Flags {
        var caseless = false
        var dotAll = false
        var multiline = false
    }

    private let characters: [Character]
    private var at = 0
    private var depth = 0

    static func parse(_ source: String) throws(PatternError) -> PatternNode {
        var parser = PatternParser(characters: Array(source))
        var flags = Flags()
        let node = try parser.choice(&flags)
        if parser.at < parser.characters.count {
            throw PatternError(message: "'\(source)': unmatched ')' at character \(parser.at + 1)")
        }
        return node
    }

    private init(characters: [Character]) {
        self.characters = characters
    }

    private func fail(_ problem: String) -> PatternError {
        PatternError(message: "'\(String(characters))': \(problem)")
    }

    private func refuse(_ feature: String) -> PatternError {
        fail("\(feature) \(PatternError.refusalReason)")
    }

    private var next: Character? { at < characters.count ? characters[at] : nil }

    private func peek(_ offset: Int) -> Character? {
        at + offset < characters.count ? characters[at + offset] : nil
    }

    /// Alternatives up to a `)` (left unread) or the end. An option such as `(?i)` holds to the
    /// end of the enclosing group, across its later alternatives.
    private mutating func choice(_ flags: inout Flags) throws(PatternError) -> PatternNode {
        var alternatives = [try sequence(&flags)]
        while next == "|" {
            at += 1
            alternatives.append(try sequence(&flags))
        }
        return alternatives.count == 1 ? alternatives[0] : .choice(alternatives)
    }

    private mutating func sequence(_ flags: inout Flags) throws(PatternError) -> PatternNode {
        var items: [PatternNode] = []
        while let c = next, c != "|", c != ")" {
            guard let atom = try atom(&flags) else { continue }  // an option or a comment
            items.append(try quantified(atom))
        }
        return items.count == 1 ? items[0] : items.isEmpty ? .empty : .sequence(items)
    }

    /// `atom` with the quantifier that follows it, if any.
    private mutating func quantified(_ atom: PatternNode) throws(PatternError) -> PatternNode {
        var node = atom
        while let c = next {
            let bounds: (min: Int, max: Int?)
            switch c {
            case "*":
                bounds = (0, nil)
                at += 1
            case "+":
                bounds = (1, nil)
                at += 1
            case "?":
                bounds = (0, 1)
                at += 1
            case "{":
                guard let counted = try counts() else { return node }  // a literal `{`
                bounds = counted
            default: return node
            }
            if next == "+" { throw refuse("possessive quantifiers ('\(c)+')") }
            if next == "?" { at += 1 }  // lazy: the same lines match
            node = .repetition(node, min: bounds.min, max: bounds.max)
            if let following = next, "*+?".contains(following) {
                throw fail("quantifier '\(following)' at character \(at + 1) follows another quantifier")
            }
        }
        return node
    }

    /// `{n}`, `{n,}`, `{n,m}` or `{,m}` at `at`; `nil` (nothing read) when the brace starts no
    /// quantifier and is a literal, as `{`, `{}`, `{,}` and `{x}` are.
    private mutating func counts() throws(PatternError) -> (min: Int, max: Int?)? {
        var index = at + 1
        func digits() -> String {
            var text = ""
            while index < characters.count, let ascii = characters[index].asciiValue, (48...57).contains(ascii) {
                text.append(characters[index])
                index += 1
            }
            return text
        }
        let low = digits()
        var high: String? = low  // nil: no upper bound
        if index < characters.count, characters[index] == "," {
            index += 1
            let text = digits()
            high = text.isEmpty ? nil : text
        }
        guard index < characters.count, characters[index] == "}", !low.isEmpty || !(high ?? "").isEmpty else {
            return nil
        }
        func count(_ text: String) throws(PatternError) -> Int {
            guard text.count <= 4, let value = Int(text), value <= Self.countLimit else {
                throw fail("repetition counts above \(Self.countLimit) are not supported")
            }
            return value
        }
        let minimum = low.isEmpty ? 0 : try count(low)
        var maximum: Int?
        if let high { maximum = try count(high) }
        if let maximum, maximum < minimum {
            throw fail("repetition {\(minimum),\(maximum)}: the maximum is below the minimum")
        }
        at = index + 1
        return (minimum, maximum)
    }

    /// One atom at `at`; `nil` for what consumes nothing and is not repeated (an option, a comment).
    private mutating func atom(_ flags: inout Flags) throws(PatternError) -> PatternNode? {
        guard let c = next else { return nil }
        at += 1
        switch c {
        case "(": return try group(&flags)
        case "[": return .set(try bracket(flags))
        case ".": return .any(newline: flags.dotAll)
        case "^": return .assertion(flags.multiline ? .lineStart : .inputStart)
        case "$": return .assertion(flags.multiline ? .lineEnd : .inputEnd)
        case "\\": return try escape(flags)
        case "*", "+", "?": throw fail("quantifier '\(c)' at character \(at) has nothing to repeat")
        default: return .character(c, caseless: flags.caseless)
        }
    }

    private mutating func group(_ flags: inout Flags) throws(PatternError) -> PatternNode? {
        let opened = at
        var inner = flags
        if next == "*" { throw refuse("backtracking verbs ('(*…)')") }
        if next == "?" {
            at += 1
            guard let kind = next else { throw fail("missing ')' for the group opened at character \(opened)") }
            switch kind {
            case ":", "|": at += 1
            case "#":
                while let c = next, c != ")" { at += 1 }
                guard next == ")" else { throw fail("missing ')' for the comment opened at character \(opened)") }
                at += 1
                return nil
            case "=", "!": throw refuse("lookahead ('(?\(kind)…)')")
            case ">": throw refuse("atomic groups ('(?>…)')")
            case "(": throw refuse("conditionals ('(?(…)…)')")
            case "R", "&", "+": throw refuse("recursion and subroutine calls")
            case "<" where peek(1) == "=" || peek(1) == "!": throw refuse("lookbehind ('(?<\(peek(1) ?? " ")…)')")
            case "<", "'": try groupName(closing: kind == "<" ? ">" : "'")
            case "P":
                at += 1
                if next == "=" { throw refuse("back-references ('(?P=name)')") }
                if next == ">" { throw refuse("recursion and subroutine calls") }
                guard next == "<" else { throw fail("unknown group syntax '(?P' at character \(opened)") }
                try groupName(closing: ">")
            case let digit where digit.isASCII && digit.isNumber: throw refuse("recursion and subroutine calls")
            case "-" where peek(1).map { $0.isASCII && $0.isNumber } ?? false:
                throw refuse("recursion and subroutine calls")
            default:
                let scoped = try options(&inner)
                if !scoped {  // `(?i)`: holds for the rest of the enclosing group
                    flags = inner
                    return nil
                }
            }
        }
        depth += 1
        if depth > Self.depthLimit { throw fail("groups nested deeper than \(Self.depthLimit)") }
        let node = try choice(&inner)
        depth -= 1
        guard next == ")" else { throw fail("missing ')' for the group opened at character \(opened)") }
        at += 1
        return node
    }

    /// A group's name up to `closing` (nothing is captured: the name is only checked).
    private mutating func groupName(closing: Character) throws(PatternError) {
        let start = at
        at += 1
        while let c = next, c != closing {
            guard c.isLetter || c.isNumber || c == "_" else {
                throw fail("invalid group name at character \(start + 1)")
            }
            at += 1
        }
        guard next == closing, at > start + 1 else { throw fail("invalid group name at character \(start + 1)") }
        at += 1
    }

    /// Option letters after `(?`, up to `)` (returns false: they hold from here on) or `:`
    /// (returns true: they hold inside the group).
    private mutating func options(_ flags: inout Flags) throws(PatternError) -> Bool {
        var on = true
        if next == "^" {
            flags = Flags()
            at += 1
        }
        while let c = next {
            at += 1
            switch c {
            case ")": return false
            case ":": return true
            case "-": on = false
            case "i": flags.caseless = on
            case "s": flags.dotAll = on
            case "m": flags.multiline = on
            case "n", "U": break  // captures and laziness do not change whether a line matches
            default:
                throw fail("the inline option '\(c)' is not supported (only i, s, m, n and U)")
            }
        }
        throw fail("missing ')' after the options at character \(at)")
    }

    /// What follows a `\` outside a class.
    private mutating func escape(_ flags: Flags) throws(PatternError) -> PatternNode? {
        guard let c = next else { throw fail("the expression ends with a lone '\\'") }
        switch c {
        case "b":
            at += 1
            return .assertion(.wordBoundary)
        case "B":
            at += 1
            return .assertion(.notWordBoundary)
        case "A":
            at += 1
            return .assertion(.inputStart)
        case "z":
            at += 1
            return .assertion(.inputEnd)
        case "Z":
            at += 1
            return .assertion(.inputEndBeforeNewline)
        case "N":
            at += 1
            return .any(newline: false)
        case "X":
            at += 1
            return .any(newline: true)
        case "R":
            at += 1
            return .set(PatternClass(members: [.property(.newline, negated: false)]))
        case "E":
            at += 1
            return nil  // a stray \E ends no quote
        case "Q":
            at += 1
            var quoted: [PatternNode] = []
            while let q = next, !(q == "\\" && peek(1) == "E") {
                quoted.append(.character(q, caseless: flags.caseless))
                at += 1
            }
            if next == "\\" { at += 2 }
            return quoted.isEmpty ? nil : .sequence(quoted)
        default:
            switch try classEscape(inClass: false) {
            case .character(let literal): return .character(literal, caseless: flags.caseless)
            case let member: return .set(PatternClass(members: [member], caseless: flags.caseless))
            }
        }
    }

    /// An escape that stands for one character or a class of them, at `at` (after the `\`).
    private mutating func classEscape(inClass: Bool) throws(PatternError) -> PatternClass.Member {
        guard let c = next else { throw fail("the expression ends with a lone '\\'") }
        at += 1
        let properties: [Character: CharacterProperty] = [
            "d": .digit, "w": .word, "s": .whitespace, "h": .horizontalWhitespace, "v": .newline,
        ]
        if c.isASCII, let property = properties[Character(c.lowercased())] {
            return .property(property, negated: c.isUppercase)
        }
        switch c {
        case "t": return .character("\t")
        case "n": return .character("\n")
        case "r": return .character("\r")
        case "f": return .character("\u{0C}")
        case "e": return .character("\u{1B}")
        case "a": return .character("\u{07}")
        case "b" where inClass: return .character("\u{08}")
        case "0":
            var value: UInt32 = 0
            for _ in 0..<2 {
                guard let digit = next?.wholeNumberValue, next?.isASCII == true, digit < 8 else { break }
                value = value * 8 + UInt32(digit)
                at += 1
            }
            return .character(Character(Unicode.Scalar(UInt8(value))))
        case "x", "u":
            return .character(try hexScalar(fixed: c == "x" ? 2 : 4))
        case let digit where digit.isASCII && digit.isNumber: throw refuse("back-references ('\\\(digit)')")
        case "g", "k": throw refuse("back-references and subroutine calls ('\\\(c)')")
        case "p", "P": throw refuse("Unicode properties ('\\\(c){…}'); use a class such as [A-Za-z]")
        case "K", "G": throw refuse("'\\\(c)'")
        default:
            if c.isLetter || c.isNumber { throw fail("unknown escape '\\\(c)'") }
            return .character(c)  // \. \( \\ \[ …
        }
    }

    /// `\x{H…}`, `\u{H…}`, or exactly `fixed` hex digits (`\xHH`, `\uHHHH`).
    private mutating func hexScalar(fixed: Int) throws(PatternError) -> Character {
        var digits = ""
        if next == "{" {
            at += 1
            while let c = next, c != "}" {
                digits.append(c)
                at += 1
            }
            guard next == "}" else { throw fail("missing '}' in a hexadecimal escape") }
            at += 1
        } else {
            while digits.count < fixed, let c = next, c.isHexDigit {
                digits.append(c)
                at += 1
            }
        }
        guard !digits.isEmpty, digits.count <= 8, let value = UInt32(digits, radix: 16),
            let scalar = Unicode.Scalar(value)
        else {
            throw fail("invalid hexadecimal escape '\(digits)'")
        }
        return Character(scalar)
    }

    /// A class after its `[`, through its `]`.
    private mutating func bracket(_ flags: Flags) throws(PatternError) -> PatternClass {
        let opened = at
        var result = PatternClass(members: [], caseless: flags.caseless)
        if next == "^" {
            result.negated = true
            at += 1
        }
        var first = true
        while let c = next {
            if c == "]" && !first {
                at += 1
                return result
            }
            first = false
            if c == "[" {
                if peek(1) == ":" {
                    result.members.append(try posixClass())
                    continue
                }
                throw fail(
                    "nested classes ('[' inside a class at character \(at + 1)) are not supported; escape it as \\[")
            }
            if (c == "&" && peek(1) == "&") || (c == "-" && peek(1) == "-") || (c == "~" && peek(1) == "~") {
                throw fail("class set operations ('\(c)\(c)') are not supported")
            }
            let low = try classCharacter()
            // A range `a-z`; a `-` first, last or after a range is a plain member.
            if next == "-", let after = peek(1), after != "]", case .character(let from) = low {
                at += 1
                guard case .character(let to) = try classCharacter() else {
                    throw fail("a range ends in a class escape at character \(at)")
                }
                guard let lowScalar = from.singleScalar, let highScalar = to.singleScalar,
                    lowScalar.value <= highScalar.value
                else {
                    throw fail("invalid range '\(from)-\(to)' in a class")
                }
                result.members.append(.range(lowScalar, highScalar))
            } else {
                result.members.append(low)
            }
        }
        throw fail("missing ']' for the class opened at character \(opened)")
    }

    private mutating func classCharacter() throws(PatternError) -> PatternClass.Member {
        guard let c = next else { throw fail("missing ']' at the end") }
        at += 1
        guard c == "\\" else { return .character(c) }
        if let quoted = next, "NXRQEbBAzZ".contains(quoted), quoted != "b" {
            throw fail("'\\\(quoted)' is not allowed in a class")
        }
        return try classEscape(inClass: true)
    }

    /// `[:name:]` or `[:^name:]` at `at`.
    private mutating func posixClass() throws(PatternError) -> PatternClass.Member {
        let start = at
        at += 2
        var negated = false
        if next == "^" {
            negated = true
            at += 1
        }
        var name = ""
        while let c = next, c.isLetter {
            name.append(c)
            at += 1
        }
        guard next == ":", peek(1) == "]" else { throw fail("unterminated POSIX class at character \(start + 1)") }
        at += 2
        guard let property = CharacterProperty.posixNames[name] else {
            throw fail("unknown POSIX class '[:\(name):]'")
        }
        return .property(property, negated: negated)
    }
}

extension Character {
    /// The one scalar of a character made of one; `nil` otherwise.
    var singleScalar: Unicode.Scalar? {
        unicodeScalars.count == 1 ? unicodeScalars.first : nil
    }
}
