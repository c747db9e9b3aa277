import FoundationEssentials
import PremainModel

/// Renders any report as JSON: sorted keys, pretty-printed, slashes unescaped. Every string
/// taken from a binary is escaped by the encoder, so names cannot break the document.
public enum JSONRenderer {
    public static func render<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Decodes a report written by `render`.
    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
