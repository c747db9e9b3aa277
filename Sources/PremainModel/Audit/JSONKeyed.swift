/// A model value whose JSON keys are listed beside its fields: its `CodingKeys`, declared in
/// the order the JSON writes them (sorted by their UTF-8 bytes). `Codable` encodes and decodes
/// with them, and the audit report's fast writer (`AuditJSONWriter`) writes each value by an
/// exhaustive `switch` over them, so a key added here does not compile until it is written there.
///
/// `AuditJSONWriterTests` fails when a stored property has no key (and is not listed in
/// `fieldsNotInJSON`), when the keys are out of order, when a type of the audit model does not
/// conform, and when the writer's keys differ from `Codable`'s for any type of a fully
/// populated value.
public protocol JSONKeyed {
    associatedtype CodingKeys: CodingKey & CaseIterable
    /// Stored properties kept in memory only, never written to JSON; `[]` unless a type says.
    static var fieldsNotInJSON: [String] { get }
}

extension JSONKeyed {
    public static var fieldsNotInJSON: [String] { [] }
}
