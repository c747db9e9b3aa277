import PremainModel

/// A `--ready` pattern: a regular expression tried against each line of output, matched in time
/// linear in the line (`PatternProgram`, a Pike VM) and given up at the run's deadline, so no
/// expression can hold a run past `--timeout`. The syntax is `PatternParser`'s; what needs
/// backtracking (back-references, lookaround, atomic groups, possessive quantifiers, …) is
/// refused when the pattern is made. Characters compare as Swift's `Character` does (canonical
/// equivalence: `é` precomposed matches `e` + U+0301).
///
/// Most lines of a chatty program cannot match: when the expression holds a run of plain ASCII
/// characters that every match must contain ("listening on port" in `listening on port \d+`),
/// a line without those bytes is passed over with a byte search, never decoded to a `String`
/// nor given to the matcher.
public struct OutputPattern: Sendable, Equatable {
    /// The expression as given.
    public let source: String
    /// Bytes that every matching line contains; `[]` when none could be proven.
    let requiredBytes: [UInt8]
    let program: PatternProgram

    /// Throws a one-line message when `source` is not a valid expression, or uses a feature
    /// the linear-time matcher refuses.
    public init(_ source: String) throws(PatternError) {
        program = try PatternProgram(PatternParser.parse(source), source: source)
        self.source = source
        requiredBytes = RequiredLiteral.longest(in: source)
    }

    /// True when some part of `line` matches.
    public func matches(_ line: String) -> Bool {
        var steps = 0
        return program.run(line, deadlineNs: nil, steps: &steps) == .matched
    }

    /// Whether some part of the line `bytes` (UTF-8, no newline) matches, or the clock passed
    /// `deadlineNs` (CLOCK_MONOTONIC) first.
    func match(bytes: ArraySlice<UInt8>, deadlineNs: UInt64?) -> PatternProgram.Outcome {
        guard RequiredLiteral.occurs(requiredBytes, in: bytes) else { return .noMatch }
        var steps = 0
        return program.run(String(decoding: bytes, as: UTF8.self), deadlineNs: deadlineNs, steps: &steps)
    }

    /// True when some part of the line `bytes` (UTF-8, no newline) matches.
    func matches(bytes: ArraySlice<UInt8>) -> Bool {
        match(bytes: bytes, deadlineNs: nil) == .matched
    }

    public static func == (lhs: OutputPattern, rhs: OutputPattern) -> Bool { lhs.source == rhs.source }
}

/// A pattern that does not compile, or uses a feature the matcher refuses.
public struct PatternError: Error, Sendable, CustomStringConvertible {
    /// One line: the pattern in quotes, then what is wrong.
    public var message: String
    public var description: String { message }

    /// Why a refused feature is refused, after its name.
    static let refusalReason = "not supported: --ready matches in time linear in the line, without backtracking"
}

/// The longest run of plain characters that every match of an expression contains, found by a
/// deliberately small reading of its syntax: any construct it does not know (alternation,
/// `(?` options and lookarounds, back-references, `\p{…}`, nested classes) gives up with `[]`,
/// so a line is never passed over wrongly.
enum RequiredLiteral {
    /// Escapes that stand for one character of a class (`\d`) or for a position (`\b`).
    private static let classEscapes = Set("dDsSwWbBhHvVRX".unicodeScalars.map { UInt8($0.value) })
    /// ASCII punctuation that is an ordinary character outside a class.
    private static let plainPunctuation = Set(" !\"#%&',-/:<=>@_~".unicodeScalars.map { UInt8($0.value) })
    /// Characters that another character is canonically equivalent to (U+212A KELVIN SIGN is
    /// `K`, U+037E is `;`, U+1FEF is a backtick), and the matcher compares characters by
    /// canonical equivalence: a line may match without holding these bytes.
    private static let equivalentToOthers = Set("K;`".unicodeScalars.map { UInt8($0.value) })

    /// `[]` when the expression requires no literal this reading can prove.
    static func longest(in source: String) -> [UInt8] {
        let bytes = Array(source.utf8)
        // Alternation anywhere (`a|b`) or any `(?` construct (options such as (?i), lookarounds).
        if bytes.contains(UInt8(ascii: "|")) || source.contains("(?") { return [] }
        // Literal characters at group depth 0, each with whether a quantifier may drop it.
        var best: [UInt8] = []
        var run: [UInt8] = []
        func endRun() {
            if run.count > best.count { best = run }
            run = []
        }
        var depth = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var literal: UInt8?
            var next = index + 1
            switch byte {
            case UInt8(ascii: "\\"):
                guard next < bytes.count else { return [] }
                let escaped = bytes[next]
                next += 1
                if classEscapes.contains(escaped) {
                    literal = nil
                } else if isAlphanumeric(escaped) || escaped >= 0x80 {
                    return []  // \1, \k<…>, \p{…}, \x{…}, \Q…\E: not read here
                } else if !equivalentToOthers.contains(escaped) {
                    literal = escaped  // \. \( \[ \\ …
                }
            case UInt8(ascii: "["):
                // Skip the class: `]` first or after `^` is a member; a nested `[` gives up.
                var at = next
                if at < bytes.count, bytes[at] == UInt8(ascii: "^") { at += 1 }
                if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1 }
                while at < bytes.count, bytes[at] != UInt8(ascii: "]") {
                    if bytes[at] == UInt8(ascii: "[") { return [] }
                    at += bytes[at] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard at < bytes.count else { return [] }
                next = at + 1
            case UInt8(ascii: "{"):
                // A quantifier's bounds (`{2,5}`) are no characters of the line.
                guard let close = bytes[next...].firstIndex(of: UInt8(ascii: "}")) else { return [] }
                next = close + 1
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { return [] }
            default:
                if (isAlphanumeric(byte) || plainPunctuation.contains(byte)) && !equivalentToOthers.contains(byte) {
                    literal = byte
                }
            // Anything else (. ^ $ * + ? and non-ASCII) ends a run.
            }
            // What follows: `?`, `*` or `{` may drop the character; `+` keeps one copy but a
            // run cannot go on past it; a non-ASCII byte may be a combining mark that makes one
            // character with it (`e` + U+0301 is `é`, which a line may hold precomposed).
            let quantifier = next < bytes.count ? bytes[next] : 0
            if let literal, depth == 0 {
                switch quantifier {
                case UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "{"), 0x80...:
                    endRun()
                case UInt8(ascii: "+"):
                    run.append(literal)
                    endRun()
                default:
                    run.append(literal)
                }
            } else {
                endRun()
            }
            index = next
        }
        endRun()
        return depth == 0 ? best : []
    }

    /// True when `needle` occurs in `haystack` (always for an empty needle).
    static func occurs(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        let lastStart = haystack.endIndex - needle.count
        var from = haystack.startIndex
        while from <= lastStart, let at = haystack[from...lastStart].firstIndex(of: first) {
            if haystack[at..<(at + needle.count)].elementsEqual(needle) { return true }
            from = at + 1
        }
        return false
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

/// Splits each stream's bytes into lines for `--ready` (at most 64 KiB of a line is kept) and
/// tries the pattern on each complete line, then once on what is left of the last one; past
/// the deadline no line matches (the run is timing out).
struct OutputLines {
    private var pending: [LaunchSample.Stream: [UInt8]] = [:]
    static let lineLimit = 65536

    /// True when a line (or the unfinished last line) of `bytes`, with what came before on
    /// this stream, matches.
    mutating func consume(
        _ bytes: ArraySlice<UInt8>, stream: LaunchSample.Stream, pattern: OutputPattern,
        deadlineNs: UInt64? = nil
    ) -> Bool {
        func matches(_ line: ArraySlice<UInt8>) -> Bool {
            pattern.match(bytes: line, deadlineNs: deadlineNs) == .matched
        }
        var buffer = pending[stream] ?? []
        pending[stream] = nil
        defer { pending[stream] = buffer }
        var rest = bytes
        while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            let line = rest[..<newline]
            rest = rest[(newline + 1)...]
            if buffer.isEmpty {
                if matches(line.prefix(Self.lineLimit)) { return true }
            } else {
                buffer.append(contentsOf: line.prefix(max(0, Self.lineLimit - buffer.count)))
                let matched = matches(buffer[...])
                buffer.removeAll(keepingCapacity: true)
                if matched { return true }
            }
        }
        guard !rest.isEmpty || !buffer.isEmpty else { return false }
        buffer.append(contentsOf: rest.prefix(max(0, Self.lineLimit - buffer.count)))
        // A prompt without a newline ("ready> ") is tried as it stands.
        return matches(buffer[...])
    }
}
