@testable import PremainLaunch
import PremainModel
import Testing

/// `--ready`: line splitting across reads and the byte pre-filter that spares the regex engine
/// the lines that cannot match. No launch.
struct OutputPatternTests {
    /// Feeds `chunks` to one stream and returns the index of the chunk where the pattern matched.
    static func matchingChunk(_ pattern: String, _ chunks: [String]) throws -> Int? {
        let compiled = try OutputPattern(pattern)
        var lines = OutputLines()
        return chunks.firstIndex { lines.consume(ArraySlice($0.utf8), stream: .stdout, pattern: compiled) }
    }

    @Test func aLineSplitAcrossReadsMatches() throws {
        #expect(try Self.matchingChunk("listening on port [0-9]+", ["starting\nlisten", "ing on port", " 80", "80\n"]) == 2)
        #expect(try Self.matchingChunk("port 8080$", ["port 80", "80 (http)\n", "port 80", "80\n"]) == 3)
        #expect(throws: PatternError.self) { try OutputPattern("(unclosed") }
    }

    @Test func aPromptWithoutANewlineMatches() throws {
        #expect(try Self.matchingChunk("^ready> $", ["loading\n", "ready> "]) == 1)
    }

    @Test func streamsKeepTheirOwnUnfinishedLines() throws {
        let pattern = try OutputPattern("server up")
        var lines = OutputLines()
        let results = [("server ", LaunchSample.Stream.stdout), ("up", .stderr), ("up\n", .stdout)].map {
            lines.consume(ArraySlice($0.0.utf8), stream: $0.1, pattern: pattern)
        }
        #expect(results == [false, false, true])
    }

    @Test func anOverlongLineKeepsItsFirst64KiB() throws {
        let long = String(repeating: "x", count: OutputLines.lineLimit + 10)
        #expect(try Self.matchingChunk("^x+READY", [long + "READY\n"]) == nil)
        #expect(try Self.matchingChunk("^x{100}", [long, "\n"]) == 0)
        #expect(try Self.matchingChunk("after", [long + "\n", "after\n"]) == 1)
    }

    @Test func requiredBytesAreTheLongestPlainRun() {
        #expect(RequiredLiteral.longest(in: "listening on port [0-9]+") == Array("listening on port ".utf8))
        #expect(RequiredLiteral.longest(in: #"ready\.\d+ at abc+d"#) == Array(" at abc".utf8))
        #expect(RequiredLiteral.longest(in: "x{10} ok") == Array(" ok".utf8))
        #expect(RequiredLiteral.longest(in: "^Serving (HTTP)? on 0\\.0\\.0\\.0 port") == Array(" on 0.0.0.0 port".utf8))
        #expect(RequiredLiteral.longest(in: "colou?r ready") == Array("r ready".utf8))
        #expect(RequiredLiteral.longest(in: "[]ab]+xyz{2}") == Array("xy".utf8))
    }

    @Test func constructsTheReadingDoesNotKnowRequireNothing() {
        for pattern in ["ready|listening", "(?i)ready", "(?<=x)ready", #"\p{L}ready"#, #"(a)\1"#, #"\Qa.b\E"#,
                        "[[:alpha:]]ready", "ready)("] {
            #expect(RequiredLiteral.longest(in: pattern) == [], "\(pattern)")
        }
    }

    /// Swift's `Regex` matches `K` against U+212A KELVIN SIGN and `é` against `e` + U+0301:
    /// those characters are never required as bytes.
    @Test func canonicallyEquivalentCharactersAreNotRequired() throws {
        #expect(RequiredLiteral.longest(in: "OK;go") == Array("go".utf8))
        #expect(RequiredLiteral.longest(in: "cafe\u{301} open") == Array(" open".utf8))
        let kelvin = try OutputPattern("300 K")
        #expect(kelvin.matches(bytes: ArraySlice("300 \u{212A}".utf8)) == kelvin.matches("300 \u{212A}"))
        let cafe = try OutputPattern("cafe\u{301} open")
        #expect(cafe.matches(bytes: ArraySlice("caf\u{E9} open".utf8)))
    }

    @Test func aLineWithoutTheRequiredBytesIsPassedOver() throws {
        let pattern = try OutputPattern("listening on port [0-9]+")
        #expect(!pattern.matches(bytes: ArraySlice("listening on por 80".utf8)))
        #expect(pattern.matches(bytes: ArraySlice("now listening on port 80 (ipv4)".utf8)))
        #expect(RequiredLiteral.occurs(Array("aab".utf8), in: ArraySlice("aaab".utf8)))
        #expect(!RequiredLiteral.occurs(Array("aab".utf8), in: ArraySlice("aa".utf8)))
        #expect(RequiredLiteral.occurs([], in: []))
    }
}
