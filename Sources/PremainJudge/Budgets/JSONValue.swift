/// Any JSON value: premain.json as `ConfigParser` reads it, checking each key itself so that
/// an error can name the key. (Reports are decoded into their model types instead.)
///
/// Parsed by hand in one pass over the UTF-8 bytes: a key given twice in one object is an
/// error (JSON leaves it undefined, and a second `"failOn"` would silently win), nesting is
/// limited to `maxDepth`, and numbers must be finite doubles.
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Deepest nesting of arrays and objects accepted.
    static let maxDepth = 256

    /// Why a document is not accepted: the dotted key where it happened ("" for the document
    /// itself) and what, lowercase.
    struct ParseError: Error, Equatable {
        var key: String
        var message: String
    }

    /// Parses a JSON document; `nil` when it is not JSON (or has a duplicate key).
    static func parse(_ text: String) -> JSONValue? {
        try? parseStrict(text)
    }

    /// Parses a JSON document, or throws what is wrong and where.
    static func parseStrict(_ text: String) throws(ParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { bytes -> Result<JSONValue, ParseError> in
            var parser = Parser(bytes: bytes)
            do throws(ParseError) {
                let value = try parser.value(depth: 0, key: "")
                parser.skipSpace()
                guard parser.position == bytes.count else { throw parser.invalid("unexpected text after the document") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        func invalid(_ what: String) -> ParseError {
            ParseError(key: "", message: "not valid JSON: \(what) at byte \(position)")
        }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int, key: String) throws(ParseError) -> JSONValue {
            skipSpace()
            guard position < bytes.count else { throw invalid("unexpected end") }
            switch bytes[position] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1, key: key)
            case UInt8(ascii: "["): return try array(depth: depth + 1, key: key)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return .number(try number())
            }
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) throws(ParseError) -> JSONValue {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count,
                (0..<count).allSatisfy({ bytes[position + $0] == word.utf8Start[$0] })
            else {
                throw invalid("unexpected character")
            }
            position += count
            return value
        }

        mutating func object(depth: Int, key: String) throws(ParseError) -> JSONValue {
            guard depth <= JSONValue.maxDepth else { throw invalid("nested deeper than \(JSONValue.maxDepth) levels") }
            position += 1
            var fields: [String: JSONValue] = [:]
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                position += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                    throw invalid("expected a key")
                }
                let name = try string()
                let path = key.isEmpty ? name : key + "." + name
                guard fields[name] == nil else { throw ParseError(key: path, message: "given twice; keep one") }
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                    throw invalid("expected ':'")
                }
                position += 1
                fields[name] = try value(depth: depth, key: path)
                skipSpace()
                guard position < bytes.count else { throw invalid("unexpected end") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "}") {
                    position += 1
                    return .object(fields)
                } else {
                    throw invalid("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int, key: String) throws(ParseError) -> JSONValue {
            guard depth <= JSONValue.maxDepth else { throw invalid("nested deeper than \(JSONValue.maxDepth) levels") }
            position += 1
            var items: [JSONValue] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                items.append(try value(depth: depth, key: "\(key)[\(items.count)]"))
                skipSpace()
                guard position < bytes.count else { throw invalid("unexpected end") }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                } else if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    return .array(items)
                } else {
                    throw invalid("expected ',' or ']'")
                }
            }
        }

        mutating func number() throws(ParseError) -> Double {
            let start = position
            while position < bytes.count, "+-0123456789.eE".utf8.contains(bytes[position]) { position += 1 }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            // JSON's grammar: no leading '+', no bare '.', no leading zeros before digits.
            guard let first = text.utf8.first, first != UInt8(ascii: "+"), first != UInt8(ascii: "."),
                !text.hasPrefix("-."),
                !(text.hasPrefix("0") && text.count > 1 && text.dropFirst().first?.isNumber == true),
                !(text.hasPrefix("-0") && text.count > 2 && text.dropFirst(2).first?.isNumber == true),
                let value = Double(text), value.isFinite
            else {
                position = start
                throw invalid(
                    start < bytes.count && "+-0123456789.eE".utf8.contains(bytes[start])
                        ? "not a finite number" : "unexpected character")
            }
            return value
        }

        mutating func string() throws(ParseError) -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var runStart = position
            func flush(_ end: Int) {
                scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    flush(position)
                    position += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw invalid("control character in a string") }
                if byte == UInt8(ascii: "\\") {
                    flush(position)
                    position += 1
                    guard position < bytes.count else { break }
                    switch bytes[position] {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{c}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code), position + 2 < bytes.count,
                            bytes[position + 1] == UInt8(ascii: "\\"), bytes[position + 2] == UInt8(ascii: "u")
                        {
                            let save = position
                            position += 2
                            let low = try hex4()
                            if (0xDC00..<0xE000).contains(low) {
                                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                position = save
                            }
                        }
                        scalars.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                    default: throw invalid("invalid escape in a string")
                    }
                    position += 1
                    runStart = position
                    continue
                }
                position += 1
            }
            throw invalid("unterminated string")
        }

        /// Reads the four hex digits after `\u` (position on the `u`); leaves position on the last.
        mutating func hex4() throws(ParseError) -> UInt32 {
            guard position + 4 < bytes.count else { throw invalid("truncated \\u escape") }
            var code: UInt32 = 0
            for offset in 1...4 {
                guard let digit = UInt32(String(UnicodeScalar(bytes[position + offset])), radix: 16) else {
                    throw invalid("invalid \\u escape")
                }
                code = code << 4 | digit
            }
            position += 4
            return code
        }
    }

    /// The value's kind in error messages: "a number", "an object".
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// A one-line rendering for display: strings bare, numbers without a needless ".0",
    /// arrays joined with spaces, objects as `key=value` pairs.
    var displayText: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return String(value)
        case .string(let value): return value
        case .array(let values): return values.map(\.displayText).joined(separator: " ")
        case .object(let values):
            return values.keys.sorted().map { "\($0)=\(values[$0]?.displayText ?? "")" }.joined(separator: " ")
        }
    }

    subscript(_ key: String) -> JSONValue? {
        if case .object(let values) = self { return values[key] }
        return nil
    }
}
