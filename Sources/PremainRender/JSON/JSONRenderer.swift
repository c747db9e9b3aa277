import FoundationEssentials
import PremainModel

/// Renders any report as JSON: sorted keys, pretty-printed, slashes unescaped, the bytes
/// `JSONEncoder` writes with those options (`PrettyJSONEncoder`, which is faster). Every string
/// taken from a binary is escaped by the encoder, so names cannot break the document.
public enum JSONRenderer {
    public static func render<T: Encodable>(_ value: T, userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws
        -> String
    {
        var bytes = try PrettyJSONEncoder.encode(value, userInfo: userInfo)
        bytes.append(0x0a)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes a report written by `render`.
    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
