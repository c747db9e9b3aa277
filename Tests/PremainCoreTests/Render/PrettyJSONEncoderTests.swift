import FoundationEssentials
import PremainAudit
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

/// `PrettyJSONEncoder` must write the bytes `JSONEncoder` writes with sorted keys, pretty
/// printing and unescaped slashes: reports written before and after it are diffed as text.
@Suite struct PrettyJSONEncoderTests {
    static func foundation<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    struct Awkward: Encodable {
        var zeta = "a/b \"quoted\" back\\slash \u{1} \u{8}\u{c}\n\r\t \u{7f} é \u{2028}"
        var alpha: [Int] = []
        var empty: [String: Int] = [:]
        var keys: [String: Int] = ["b": 1, "B": 2, "a_b": 3, "a-b": 4, "a10": 5, "a9": 6, "é": 7, "": 8]
        var doubles: [Double] = [1, 0.5, 1e-7, 123_456_789_012, 1e300, 0.1 + 0.2, -0.0]
        var integers: [UInt64] = [0, UInt64.max]
        var signed: [Int64] = [Int64.min, -1]
        var absent: String? = nil
        var present: Bool? = true
        var nested: [[String: [Int]]] = [["x": []], [:]]
        var kind = FoundVia.ldSoCache
    }

    struct ExplicitNil: Encodable {
        enum Keys: String, CodingKey { case value, again }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeNil(forKey: .value)
            try container.encode(1, forKey: .again)
            try container.encode(2, forKey: .again)  // the later value wins
        }
    }

    /// Hand-written containers: nested keyed and unkeyed containers, a single value that wraps
    /// a struct, inside arrays, so every nesting level is indented as JSONEncoder indents it.
    struct Containers: Encodable {
        struct Wrapper: Encodable {
            var inner = Awkward()
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(inner)
            }
        }
        enum Keys: String, CodingKey { case nested, list, wrapped, wrappers }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try nested.encode([1, 2], forKey: .list)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            var inList = list.nestedContainer(keyedBy: Keys.self)
            try inList.encode(Wrapper(), forKey: .wrapped)
            var deeper = list.nestedUnkeyedContainer()
            try deeper.encode(Wrapper())
            try container.encode(Wrapper(), forKey: .wrapped)
            try container.encode([Wrapper(), Wrapper()], forKey: .wrappers)
        }
    }

    @Test func awkwardValuesAreWrittenAsJSONEncoderWritesThem() throws {
        #expect(try JSONRenderer.render(Containers()) == Self.foundation(Containers()))
        #expect(try JSONRenderer.render([Containers.Wrapper()]) == Self.foundation([Containers.Wrapper()]))
        #expect(try JSONRenderer.render(Awkward()) == Self.foundation(Awkward()))
        #expect(try JSONRenderer.render(ExplicitNil()) == Self.foundation(ExplicitNil()))
        #expect(try JSONRenderer.render([String]()) == Self.foundation([String]()))
        #expect(try JSONRenderer.render("top") == Self.foundation("top"))
    }

    /// A folder audit with closures, initializers, Swift suspects and a summary, written whole
    /// and binary by binary on several threads.
    @Test func anAuditReportIsWrittenAsJSONEncoderWritesIt() throws {
        let report = BatchAudit(workers: 2).run([
            try Samples.path("cxx-static-init"), try Samples.path("swift-startup"),
            try Samples.path("odd"), "/bin/true",
        ])
        #expect(report.binaries.count > 5)
        let expected = try Self.foundation(report)
        #expect(try JSONRenderer.render(report) == expected)
        #expect(try ParallelAuditJSON.render(report, workers: 4) == expected)
    }

    @Test func nonFiniteDoublesAreRefused() {
        #expect(throws: EncodingError.self) { try JSONRenderer.render([Double.nan]) }
    }
}
