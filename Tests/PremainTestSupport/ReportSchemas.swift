import Foundation

/// The published JSON Schemas of premain's reports (docs/schemas/NAME.schema.json) and a small
/// validator for the part of JSON Schema 2020-12 they use: `type`, `enum`, `const`,
/// `properties`, `required`, `additionalProperties`, `items`, `minimum` and `$ref` (to `$defs`
/// in the same file or to another schema file). `CLI.run` hands it every JSON report premain
/// writes in a test; `ReportSchemaTests` checks the schemas themselves with python3-jsonschema.
public enum ReportSchemas {
    /// The folder of the schema files.
    public static let folder = Repository.root + "/docs/schemas"

    /// Every schema's name (the file name without `.schema.json`).
    public static var names: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".schema.json") }.map { String($0.dropLast(".schema.json".count)) }.sorted()
    }

    /// The schema that describes the JSON report of `arguments` (a premain command line), or
    /// `nil` when that command writes no JSON report: `audit …` → `audit`, `history show` → `history`.
    public static func name(forCommand arguments: [String]) -> String? {
        guard let command = arguments.first else { return nil }
        switch command {
        case "audit", "measure", "trace", "check", "compare", "diff", "pr", "rules": return command
        case "history": return arguments.dropFirst().first == "show" ? "history" : nil
        case "field":
            switch arguments.dropFirst().first {
            case "report": return "field"
            case "compare": return "field-compare"
            default: return nil
            }
        default: return nil
        }
    }

    /// Why `text` does not match the schema `name`: one line per violation (`path: message`);
    /// `[]` when it matches. A text that is not JSON is one violation.
    public static func violations(_ text: String, schema name: String) throws -> [String] {
        let value: SchemaValue
        do {
            value = try JSONDecoder().decode(SchemaValue.self, from: Data(text.utf8))
        } catch {
            return ["$: not JSON (\(error))"]
        }
        var validator = Validator()
        let root = try validator.schema(named: name)
        validator.check(value, against: root, in: name, at: "$")
        return validator.problems
    }

    /// A schema file that cannot be read.
    public struct SchemaError: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    struct Validator {
        var files: [String: SchemaValue] = [:]
        var problems: [String] = []

        mutating func schema(named name: String) throws -> SchemaValue {
            if let known = files[name] { return known }
            let path = ReportSchemas.folder + "/" + name + ".schema.json"
            guard let data = FileManager.default.contents(atPath: path) else {
                throw SchemaError(description: "no schema \(path)")
            }
            let value = try JSONDecoder().decode(SchemaValue.self, from: data)
            files[name] = value
            return value
        }

        /// Follows `$ref`: `#/$defs/x` in `file`, or `other.schema.json` / `other.schema.json#/…`.
        mutating func resolve(_ reference: String, in file: String) -> (SchemaValue, String)? {
            let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            var target = file
            if let document = parts.first, !document.isEmpty {
                target = String(document.hasSuffix(".schema.json") ? document.dropLast(".schema.json".count) : document)
            }
            guard var node = try? schema(named: target) else { return nil }
            if parts.count > 1 {
                for step in parts[1].split(separator: "/") {
                    guard case .object(let members) = node, let next = members[String(step)] else { return nil }
                    node = next
                }
            }
            return (node, target)
        }

        mutating func check(_ value: SchemaValue, against schema: SchemaValue, in file: String, at path: String) {
            guard case .object(let rules) = schema else { return }
            if case .string(let reference)? = rules["$ref"] {
                guard let (target, targetFile) = resolve(reference, in: file) else {
                    problems.append("\(path): unresolved $ref \(reference)")
                    return
                }
                check(value, against: target, in: targetFile, at: path)
            }
            if let type = rules["type"] {
                let allowed: [String]
                switch type {
                case .string(let one): allowed = [one]
                case .array(let many): allowed = many.compactMap { if case .string(let s) = $0 { s } else { nil } }
                default: allowed = []
                }
                if !allowed.contains(where: { value.isOfType($0) }) {
                    problems.append("\(path): expected \(allowed.joined(separator: " or ")), found \(value.typeName)")
                    return
                }
            }
            if case .array(let options)? = rules["enum"], !options.contains(value) {
                problems.append("\(path): \(value.brief) is not one of \(options.map(\.brief).joined(separator: ", "))")
            }
            if let constant = rules["const"], constant != value {
                problems.append("\(path): expected \(constant.brief), found \(value.brief)")
            }
            if case .number(let minimum)? = rules["minimum"], case .number(let number) = value, number < minimum {
                problems.append("\(path): \(number) is below the minimum \(minimum)")
            }
            if case .object(let members) = value {
                if case .array(let required)? = rules["required"] {
                    for case .string(let key) in required where members[key] == nil {
                        problems.append("\(path): missing required key '\(key)'")
                    }
                }
                var properties: [String: SchemaValue] = [:]
                if case .object(let declared)? = rules["properties"] { properties = declared }
                for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                    if let rule = properties[key] {
                        check(member, against: rule, in: file, at: path + "." + key)
                    } else if let extra = rules["additionalProperties"] {
                        if case .bool(false) = extra {
                            problems.append("\(path): unexpected key '\(key)'")
                        } else {
                            check(member, against: extra, in: file, at: path + "." + key)
                        }
                    }
                }
            }
            if case .array(let elements) = value, let items = rules["items"] {
                for (index, element) in elements.enumerated() {
                    check(element, against: items, in: file, at: "\(path)[\(index)]")
                }
            }
        }
    }
}

/// Any JSON value of a report or a schema, decoded strictly: a number is never a Boolean.
enum SchemaValue: Decodable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([SchemaValue])
    case object([String: SchemaValue])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([SchemaValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: SchemaValue].self))
        }
    }

    func isOfType(_ name: String) -> Bool {
        switch (self, name) {
        case (.null, "null"), (.bool, "boolean"), (.number, "number"), (.string, "string"), (.array, "array"),
            (.object, "object"):
            return true
        case (.number(let value), "integer"): return value.rounded() == value && abs(value) < 9_007_199_254_740_992
        default: return false
        }
    }

    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    var brief: String {
        switch self {
        case .string(let text): "'\(text)'"
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .bool(let value): String(value)
        default: typeName
        }
    }
}
