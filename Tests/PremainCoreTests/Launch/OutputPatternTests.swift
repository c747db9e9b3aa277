import PremainModel
import Testing

@testable import PremainLaunch

/// `--ready`: line splitting across reads, the byte pre-filter that spares the matcher the lines
/// that cannot match, and the linear-time matcher itself (its steps, its deadline, the syntax it
/// refuses, and its answers against Swift's `Regex`). No launch.
struct OutputPatternTests {
    /// Feeds `chunks` to one stream and returns the index of the chunk where the pattern matched.
    static func matchingChunk(_ pattern: String, _ chunks: [String]) throws -> Int? {
        let compiled = try OutputPattern(pattern)
        var lines = OutputLines()
        return chunks.firstIndex { lines.consume(ArraySlice($0.utf8), stream: .stdout, pattern: compiled) }
    }

    @Test func aLineSplitAcrossReadsMatches() throws {
        #expect(
            try Self.matchingChunk("listening on port [0-9]+", ["starting\nlisten", "ing on port", " 80", "80\n"]) == 2)
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
        for pattern in [
            "ready|listening", "(?i)ready", "(?<=x)ready", #"\p{L}ready"#, #"(a)\1"#, #"\Qa.b\E"#,
            "[[:alpha:]]ready", "ready)(",
        ] {
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

    /// Issue 23, defect 7: `--ready 'ready on (a|a)+$'` on a line of 24 `a`s took 17 s with
    /// `--timeout 3` (Swift's `Regex` backtracks: ×4 for 2 more characters). The matcher is a Pike
    /// VM: a state is entered once per position, so its steps are bounded by the program's length
    /// times the line's, and a run past the deadline gives up.
    @Test func readyWithABacktrackingPatternHonoursTheTimeout() throws {
        let pattern = try OutputPattern("ready on (a|a)+$")
        let states = pattern.program.instructions.count
        func bound(_ line: String) -> Int { (4 * states + 1) * (line.count + 1) }
        for count in [24, 26, 4096] {
            for (line, expected) in [
                ("ready on " + String(repeating: "a", count: count), PatternProgram.Outcome.matched),
                ("ready on " + String(repeating: "a", count: count) + "!", .noMatch),
            ] {
                var steps = 0
                #expect(pattern.program.run(line, deadlineNs: nil, steps: &steps) == expected, "\(count) a's")
                #expect(steps <= bound(line), "\(steps) steps for \(line.count) characters and \(states) states")
            }
        }
        // A deadline already passed: the matcher gives up (the launch then reports the timeout).
        let line = ArraySlice(("ready on " + String(repeating: "a", count: 24) + "!").utf8)
        #expect(pattern.match(bytes: line, deadlineNs: MonotonicClock.nowNs()) == .deadlinePassed)
        #expect(pattern.match(bytes: line, deadlineNs: nil) == .noMatch)
        var lines = OutputLines()
        let late = lines.consume(ArraySlice("ready on aaaa\n".utf8), stream: .stdout, pattern: pattern, deadlineNs: 0)
        let inTime = lines.consume(
            ArraySlice("ready on aaaa\n".utf8), stream: .stdout, pattern: pattern, deadlineNs: nil)
        #expect(!late && inTime)
    }

    /// Repetition counts that would expand the program past its limit are refused when the
    /// pattern is made, so no line can cost more than the limit's steps per character.
    @Test func aPatternThatExpandsTooFarIsRefused() throws {
        #expect(throws: PatternError.self) { try OutputPattern("(x{1000}){1000}") }
        #expect(throws: PatternError.self) { try OutputPattern("a{1001}") }
        #expect(throws: PatternError.self) { try OutputPattern("a{5,2}") }
        #expect(throws: PatternError.self) {
            try OutputPattern(String(repeating: "(", count: 500) + String(repeating: ")", count: 500))
        }
        _ = try OutputPattern("x{1000}")
    }

    /// What needs backtracking is refused with a message that names it; the CLI turns it into
    /// a usage error (exit 64).
    @Test func featuresThatNeedBacktrackingAreRefused() {
        let refused = [
            #"(a)\1"#, #"(?<n>a)\k<n>"#, "(?=ready)", "(?!x)ready", "(?<=x)ready", "(?<!x)ready", "(?>a+)b", "a++",
            "a*+", "(?(1)a|b)", "(a(?R)?b)", "(a)(?1)", "(?&name)", #"\p{L}+"#, #"\P{L}"#, "(*ACCEPT)", #"a\Kb"#,
            #"\Ga"#, "(?P=name)", "(?x) a b",
        ]
        for source in refused {
            do {
                _ = try OutputPattern(source)
                Issue.record("'\(source)' was accepted")
            } catch {
                #expect(error.message.hasPrefix("'\(source)': "), "\(error.message)")
                #expect(error.message.contains("not supported"), "\(error.message)")
                #expect(!error.message.contains("\n"))
            }
        }
        for malformed in ["(", "a)", "[abc", "*a", "a**", #"\"#, "[z-a]", #"\x{zz}"#, "(?<>a)", #"\y"#] {
            #expect(throws: PatternError.self, "\(malformed)") { try OutputPattern(malformed) }
        }
    }

    /// On the syntax it accepts, the matcher answers as Swift's `Regex` (the engine it replaced)
    /// does, pattern by pattern and line by line.
    @Test func supportedSyntaxMatchesAsSwiftRegexDoes() throws {
        let patterns = [
            "listening on port [0-9]+", "^ready> $", "port 8080$", #"^Serving (HTTP)? on 0\.0\.0\.0 port \d+"#,
            "colou?r", "ready|listening", "(?i)READY", "(?i:ready) NOW", "a{2,3}b", "a{2}b", "a{2,}b", "x{0}y",
            "[^a-z ]+$", "[a-]z", #"\bon\b"#, #"\Bon"#, #"\s\S+\s"#, #"\w+@\w+"#, #"\Aready"#,
            #"done\z"#, #"done\Z"#, "[[:digit:]]{3}", "[[:alpha:]_]+=", "(a|b)*c", "(a*)*b", "(|a)+b", "a.c",
            #"\Qa.c\E"#, #"\x41\u{42}"#, "(?:ab)+", "(?<word>ab)+c", "(?#comment)ok", "ok\r?$", "é", "café",
            "[A-Z][a-z]+ [0-9]{1,5}", "a*?b", "(ab|a)(bc|c)",
        ]
        let lines = [
            "", "listening on port 80", "listening on port x", "ready> ", "ready>", "port 8080", "port 80801",
            "Serving HTTP on 0.0.0.0 port 8000", "Serving on 0.0.0.0 port 1", "color", "colour", "colouur",
            "now listening", "READY", "ready", "Ready NOW", "ready now", "aab", "aaab", "ab", "aaaab", "y", "xy",
            "ABC", "abc ABC", "]", "x", "-z", "az", "on", "turn on now", "one", "upon", " word ", "a@b", "mail me@host",
            "ready", "ready done", "done", "is done", "123", "12a", "PATH_X=1", "c", "abababc", "b", "aaab", "abc",
            "a.c", "AB", "ababc", "ok", "ok\r", "ok\r\r", "caf\u{E9}", "cafe\u{301}", "e\u{301}", "Port 80",
            "Listen 443", "abcc", "abc",
        ]
        for source in patterns {
            let ours = try OutputPattern(source)
            let swift = try Regex(source)
            for line in lines {
                let expected = (try? swift.firstMatch(in: line)) != nil
                #expect(ours.matches(line) == expected, "'\(source)' on '\(line.debugDescription)'")
                #expect(
                    ours.matches(bytes: ArraySlice(line.utf8)) == expected,
                    "'\(source)' on '\(line.debugDescription)' as bytes")
            }
        }
    }
}
