import Foundation
import PremainTestSupport
import Testing

/// Docs that show output show what premain writes (issue 36, item 4: docs/ci.md showed a
/// `<!-- premain-report -->` comment and a Mermaid chart that `pr` comments never had). An
/// example is marked `<!-- example: FILE, first N lines -->` before its fenced block; FILE is a
/// golden file a renderer test keeps equal to the real output, and the block must be its first
/// N lines.
struct CIDocsTests {
    /// Every marked example in docs/ (and README.md): (document, golden file, lines, block).
    static func examples() throws -> [(document: String, file: String, lines: Int, block: String)] {
        let root = Repository.root
        let documents =
            ["README.md"]
            + (FileManager.default.enumerator(atPath: root + "/docs")?.compactMap { $0 as? String }
                .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 } ?? [])
        let marker = try Regex(#"<!-- example: ([^,]+), first ([0-9]+) lines -->\n```[a-z]*\n"#)
        var found: [(String, String, Int, String)] = []
        for document in documents {
            let text = try String(contentsOfFile: root + "/" + document, encoding: .utf8)
            for match in text.matches(of: marker) {
                let rest = text[match.range.upperBound...]
                guard let end = rest.range(of: "\n```") else { continue }
                found.append(
                    (
                        document, String(text[match.output[1].range!]), Int(text[match.output[2].range!]) ?? 0,
                        String(rest[..<end.lowerBound])
                    ))
            }
        }
        return found
    }

    @Test func theCommentExampleIsTheRenderedOne() throws {
        let examples = try Self.examples()
        #expect(examples.contains { $0.document == "docs/ci.md" && $0.file == "Tests/Golden/pr.md" })
        for example in examples {
            let golden = try String(contentsOfFile: Repository.root + "/" + example.file, encoding: .utf8)
            let expected = golden.split(separator: "\n", omittingEmptySubsequences: false).prefix(example.lines)
                .joined(separator: "\n")
            #expect(
                example.block == expected,
                "\(example.document): the example of \(example.file) is stale; copy its first \(example.lines) lines")
        }
        // What the comment is not: the diff report's marker and heading, a chart it never had.
        let ci = try String(contentsOfFile: Repository.root + "/docs/ci.md", encoding: .utf8)
        let section =
            try #require(ci.components(separatedBy: "## The pull-request comment").dropFirst().first)
            .components(separatedBy: "`premain diff --format markdown` alone").first ?? ""
        #expect(!section.contains("premain-report") && !section.contains("Mermaid"))
    }
}
