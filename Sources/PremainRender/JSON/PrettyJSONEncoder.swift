import LosslessText

#if canImport(Glibc)
    import Glibc
#endif

/// Encodes an `Encodable` value to the bytes `JSONEncoder` writes with `[.sortedKeys,
/// .prettyPrinted, .withoutEscapingSlashes]` on Linux, several times faster: keys sorted by
/// their UTF-8 bytes, two-space indent, `"key" : value`, an empty array or object as `[`, a
/// blank line and `]`, doubles as their shortest `description` without a trailing `.0`,
/// strings with `\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t` and `\u00XX` for the other control
/// characters, everything else (slashes, non-ASCII) as is.
///
/// Values are collected into a small tree (objects keep their keys in encoding order and
/// are sorted when written, as `JSONEncoder` does), then written into one byte buffer.
/// `PrettyJSONEncoderTests` checks the bytes against `JSONEncoder`.
public enum PrettyJSONEncoder {
    /// The JSON text of `value` without a final newline, its nested lines indented as if it
    /// stood at nesting `level` (0 for a document).
    /// `userInfo` is what `Encoder.userInfo` gives every `encode(to:)` (e.g. a
    /// `ClosureObjectTable`).
    public static func encode<T: Encodable>(
        _ value: T, level: Int = 0,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) throws -> [UInt8] {
        let encoder = TreeEncoder(parent: nil, key: nil)
        encoder.rootUserInfo = userInfo
        try value.encode(to: encoder)
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(encoder.root ?? .object(ObjectNode()), level: level, into: &out)
        return out
    }

    // MARK: The tree

    enum Node {
        case null
        case literal(String)  // numbers and booleans, written as they are
        case string(String)
        case array(ArrayNode)
        case object(ObjectNode)
    }

    final class ArrayNode {
        var items: [Node] = []
    }

    final class ObjectNode {
        /// In encoding order; a key set twice is here twice, and the later value wins when
        /// written (as `JSONEncoder` replaces it).
        var pairs: [(key: String, value: Node)] = []

        init() {
            pairs.reserveCapacity(8)
        }

        func set(_ key: String, _ value: Node) {
            pairs.append((key, value))
        }

        /// The value last stored under `key` (nested containers asked for twice).
        func existing(_ key: String) -> Node? {
            pairs.last { $0.key == key }?.value
        }

        /// Indices of the pairs to write, by key bytes; of a key set twice only the last.
        func sortedIndices() -> [Int] {
            var order = Array(pairs.indices)
            order.sort { a, b in
                let comparison = PrettyJSONEncoder.compare(pairs[a].key, pairs[b].key)
                return comparison != 0 ? comparison < 0 : a < b
            }
            var kept: [Int] = []
            kept.reserveCapacity(order.count)
            for index in order {
                if let last = kept.last, pairs[last].key == pairs[index].key {
                    kept[kept.count - 1] = index
                } else {
                    kept.append(index)
                }
            }
            return kept
        }
    }

    /// Byte-wise comparison of two strings' UTF-8: negative, 0 or positive.
    static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let result = memcmp(l, r, common)
                    if result != 0 { return Int(result) }
                }
                return left.count - right.count
            }
        }
    }

    static func number<T: BinaryFloatingPoint & CustomStringConvertible>(
        _ value: T, _ path: @autoclosure () -> [any CodingKey]
    ) throws -> Node {
        guard let text = numberText(value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path(), debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        return .literal(text)
    }

    /// A number as `JSONEncoder` writes it: its shortest description without a trailing
    /// ".0"; `nil` for infinities and NaN, which JSON has no way to write.
    static func numberText<T: BinaryFloatingPoint & CustomStringConvertible>(_ value: T) -> String? {
        guard value.isFinite else { return nil }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    // MARK: Writing

    static func write(_ node: Node, level: Int, into out: inout [UInt8]) {
        switch node {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .literal(let text):
            out.append(contentsOf: text.utf8)
        case .string(let text):
            writeString(text, into: &out)
        case .array(let array):
            out.append(UInt8(ascii: "["))
            out.append(0x0a)
            for (index, item) in array.items.enumerated() {
                if index > 0 { separator(into: &out) }
                indent(level + 1, into: &out)
                write(item, level: level + 1, into: &out)
            }
            out.append(0x0a)
            indent(level, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            out.append(0x0a)
            for (position, index) in object.sortedIndices().enumerated() {
                if position > 0 { separator(into: &out) }
                indent(level + 1, into: &out)
                writeString(object.pairs[index].key, into: &out)
                out.append(0x20)
                out.append(UInt8(ascii: ":"))
                out.append(0x20)
                write(object.pairs[index].value, level: level + 1, into: &out)
            }
            out.append(0x0a)
            indent(level, into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    static let spaces = [UInt8](repeating: 0x20, count: 128)

    static func indent(_ level: Int, into out: inout [UInt8]) {
        var remaining = level * 2
        while remaining > 0 {
            let count = min(remaining, spaces.count)
            out.append(contentsOf: spaces[0..<count])
            remaining -= count
        }
    }

    @inline(__always)
    static func separator(into out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        out.append(0x0a)
    }

    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            if bytes.contains(where: needsEscape) {
                writeEscaped(bytes, into: &out)
            } else {
                out.append(contentsOf: bytes)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `true` for a byte that starts something `writeEscaped` rewrites: a control, `"`, `\`, or
    /// 0xF4, the first byte of a raw byte of a name that is not UTF-8 (`LosslessUTF8`).
    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == 0x5c || byte == 0xF4
    }

    /// JSON's escapes for controls, `"` and `\`; a raw byte of a name that is not UTF-8 is
    /// written as text shows it, `\\xff` (the string's value is `\xff`: JSON has no bytes).
    static func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let digits = Array("0123456789abcdef".utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5c, UInt8(ascii: "\"")])
            case 0x5c: out.append(contentsOf: [0x5c, 0x5c])
            case 0x08: out.append(contentsOf: [0x5c, UInt8(ascii: "b")])
            case 0x0c: out.append(contentsOf: [0x5c, UInt8(ascii: "f")])
            case 0x0a: out.append(contentsOf: [0x5c, UInt8(ascii: "n")])
            case 0x0d: out.append(contentsOf: [0x5c, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5c, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [
                    0x5c, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    digits[Int(byte >> 4)], digits[Int(byte & 0xf)],
                ])
            case 0xF4 where index + 2 < bytes.count:
                guard let raw = LosslessUTF8.rawByte(utf8: byte, bytes[index], bytes[index + 1], bytes[index + 2])
                else {
                    out.append(byte)
                    continue
                }
                out.append(contentsOf: [0x5c, 0x5c, UInt8(ascii: "x"), digits[Int(raw >> 4)], digits[Int(raw & 0xf)]])
                index += 3
            default: out.append(byte)
            }
        }
    }
}

/// The `Encoder` that builds `PrettyJSONEncoder.Node`s. `root` is what the value encoded:
/// `nil` when it encoded nothing (written as `{}`, as `JSONEncoder` does). The coding path is
/// the chain of parents, built into an array only when asked for (errors), not per value.
final class TreeEncoder: Encoder {
    typealias Node = PrettyJSONEncoder.Node
    let parent: TreeEncoder?
    let key: (any CodingKey)?
    /// Set on the root only; nested encoders ask their parents.
    var rootUserInfo: [CodingUserInfoKey: Any] = [:]
    var userInfo: [CodingUserInfoKey: Any] { parent?.userInfo ?? rootUserInfo }
    var root: Node?

    init(parent: TreeEncoder?, key: (any CodingKey)?) {
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var encoder: TreeEncoder? = self
        while let current = encoder {
            if let key = current.key { path.append(key) }
            encoder = current.parent
        }
        return path.reversed()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: PrettyJSONEncoder.ObjectNode
        if case .object(let existing)? = root {
            object = existing
        } else {
            object = PrettyJSONEncoder.ObjectNode()
            root = .object(object)
        }
        return KeyedEncodingContainer(TreeKeyedContainer<Key>(object: object, encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: PrettyJSONEncoder.ArrayNode
        if case .array(let existing)? = root {
            array = existing
        } else {
            array = PrettyJSONEncoder.ArrayNode()
            root = .array(array)
        }
        return TreeUnkeyedContainer(array: array, encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        TreeSingleValueContainer(encoder: self)
    }

    /// The node of `value`: scalars directly, everything else through its `encode(to:)`.
    /// Scalars are told by their metatype (a pointer comparison each); a chain of `as?`
    /// casts would cost a dynamic cast per try for every struct.
    static func node<T: Encodable>(_ value: T, parent: TreeEncoder, key: (any CodingKey)?) throws -> Node {
        if T.self == String.self { return .string(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return .literal(String(unsafeBitCast(value, to: Int.self))) }
        if T.self == Bool.self { return .literal(unsafeBitCast(value, to: Bool.self) ? "true" : "false") }
        if T.self == UInt64.self { return .literal(String(unsafeBitCast(value, to: UInt64.self))) }
        if T.self == Double.self {
            return try PrettyJSONEncoder.number(
                unsafeBitCast(value, to: Double.self), TreeEncoder(parent: parent, key: key).codingPath)
        }
        if T.self == Int64.self { return .literal(String(unsafeBitCast(value, to: Int64.self))) }
        if T.self == UInt32.self { return .literal(String(unsafeBitCast(value, to: UInt32.self))) }
        if T.self == Int32.self { return .literal(String(unsafeBitCast(value, to: Int32.self))) }
        if T.self == UInt16.self { return .literal(String(unsafeBitCast(value, to: UInt16.self))) }
        if T.self == UInt8.self { return .literal(String(unsafeBitCast(value, to: UInt8.self))) }
        if T.self == UInt.self { return .literal(String(unsafeBitCast(value, to: UInt.self))) }
        if T.self == Float.self {
            return try PrettyJSONEncoder.number(
                unsafeBitCast(value, to: Float.self), TreeEncoder(parent: parent, key: key).codingPath)
        }
        let encoder = TreeEncoder(parent: parent, key: key)
        try value.encode(to: encoder)
        return encoder.root ?? .object(PrettyJSONEncoder.ObjectNode())
    }
}

struct TreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    typealias Node = PrettyJSONEncoder.Node
    let object: PrettyJSONEncoder.ObjectNode
    /// The encoder whose value this container fills (the coding path's end).
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { object.set(key.stringValue, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        object.set(key.stringValue, .literal(value ? "true" : "false"))
    }
    mutating func encode(_ value: String, forKey key: Key) throws { object.set(key.stringValue, .string(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { object.set(key.stringValue, .literal(String(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        object.set(key.stringValue, .literal(String(value)))
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        object.set(key.stringValue, try PrettyJSONEncoder.number(value, codingPath + [key]))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.set(key.stringValue, try TreeEncoder.node(value, parent: encoder, key: key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested: PrettyJSONEncoder.ObjectNode
        if case .object(let existing)? = object.existing(key.stringValue) {
            nested = existing
        } else {
            nested = PrettyJSONEncoder.ObjectNode()
            object.set(key.stringValue, .object(nested))
        }
        return KeyedEncodingContainer(
            TreeKeyedContainer<NestedKey>(object: nested, encoder: TreeEncoder(parent: encoder, key: key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: PrettyJSONEncoder.ArrayNode
        if case .array(let existing)? = object.existing(key.stringValue) {
            nested = existing
        } else {
            nested = PrettyJSONEncoder.ArrayNode()
            object.set(key.stringValue, .array(nested))
        }
        return TreeUnkeyedContainer(array: nested, encoder: TreeEncoder(parent: encoder, key: key))
    }

    mutating func superEncoder() -> any Encoder {
        SuperEncoder(object: object, key: "super", parent: encoder, codingKey: nil)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        SuperEncoder(object: object, key: key.stringValue, parent: encoder, codingKey: key)
    }
}

struct TreeUnkeyedContainer: UnkeyedEncodingContainer {
    let array: PrettyJSONEncoder.ArrayNode
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { array.items.count }

    mutating func encodeNil() throws { array.items.append(.null) }
    mutating func encode(_ value: String) throws { array.items.append(.string(value)) }
    mutating func encode(_ value: Int) throws { array.items.append(.literal(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.items.append(try TreeEncoder.node(value, parent: encoder, key: nil))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let nested = PrettyJSONEncoder.ObjectNode()
        array.items.append(.object(nested))
        return KeyedEncodingContainer(TreeKeyedContainer<NestedKey>(object: nested, encoder: encoder))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = PrettyJSONEncoder.ArrayNode()
        array.items.append(.array(nested))
        return TreeUnkeyedContainer(array: nested, encoder: encoder)
    }

    mutating func superEncoder() -> any Encoder {
        let object = PrettyJSONEncoder.ObjectNode()
        array.items.append(.object(object))
        return SuperEncoder(object: object, key: "super", parent: encoder, codingKey: nil)
    }
}

struct TreeSingleValueContainer: SingleValueEncodingContainer {
    let encoder: TreeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.root = .null }
    mutating func encode(_ value: String) throws { encoder.root = .string(value) }
    mutating func encode(_ value: Bool) throws { encoder.root = .literal(value ? "true" : "false") }
    mutating func encode(_ value: Int) throws { encoder.root = .literal(String(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.root = try TreeEncoder.node(value, parent: encoder, key: nil)
    }
}

/// The encoder a `superEncoder()` call hands out: what it encodes is stored under `key` of
/// the parent object.
final class SuperEncoder: Encoder {
    let object: PrettyJSONEncoder.ObjectNode
    let key: String
    let inner: TreeEncoder
    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { inner.userInfo }

    init(object: PrettyJSONEncoder.ObjectNode, key: String, parent: TreeEncoder, codingKey: (any CodingKey)?) {
        self.object = object
        self.key = key
        inner = TreeEncoder(parent: parent, key: codingKey)
        if let existing = object.existing(key) { inner.root = existing }
    }

    deinit {
        if let root = inner.root { object.set(key, root) }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        defer { store() }
        return inner.container(keyedBy: type)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        defer { store() }
        return inner.unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        TreeSingleValueContainer(encoder: inner)
    }

    /// Containers share their node with the parent at once; scalars are stored at `deinit`.
    private func store() {
        if let root = inner.root { object.set(key, root) }
    }
}
