import Foundation
import PremainModel
import PremainTestSupport
import Testing

@testable import PremainRender

/// Issue 36, item 14: the comment renders under GitHub's Markdown as written (two warnings are
/// two paragraphs), counted nouns agree with their count, and a cause in the program is named
/// by the program's file name.
struct PullRequestCommentTests {
    @Test func pluralsAgreeWithTheirCount() {
        #expect(Plural.count(1, "object") == "1 object")
        #expect(Plural.count(0, "object") == "0 objects")
        #expect(Plural.count(3, "metric") == "3 metrics")
        #expect(Plural.count(1, "entry", "entries") == "1 entry")
        #expect(Plural.count(2, "entry", "entries") == "2 entries")
        #expect(Plural.noun(-1, "object") == "object")
    }

    /// No renderer or command writes a count before a plural noun by hand: they go through
    /// `Plural` ("No static change in 1 objects", "1 metrics", ".rela.plt 1 entries").
    @Test func noCountIsWrittenBeforeAPluralByHand() throws {
        let nouns = [
            "objects", "metrics", "entries", "files", "findings", "reports", "initializers", "commits", "words",
        ]
        var strays: [String] = []
        for folder in ["Sources/PremainRender", "Sources/premain"] {
            let root = Repository.root + "/" + folder
            let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
            #expect(!files.isEmpty)
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    for noun in nouns where line.contains(") \(noun)") && line.contains("\\(") {
                        // `\(x.count) objects`: an interpolation, then the noun.
                        if line.range(of: #"\\\([^"]*\) "# + noun, options: .regularExpression) != nil {
                            strays.append(
                                "\(folder)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                        }
                    }
                }
            }
        }
        #expect(strays.isEmpty, "use Plural.count:\n\(strays.joined(separator: "\n"))")
    }

    @Test func twoWarningsAreTwoParagraphsUnderGitHubMarkdown() throws {
        var report = try ReportFixtures.compare()
        report.warnings = [
            MeasurementWarning(
                kind: .wideSpread, subject: "base", message: "the spread is wide", advice: "quiet the machine"),
            MeasurementWarning(kind: .unpinned, subject: "head", message: "not pinned", advice: "give --cpu"),
        ]
        let markdown = CompareMarkdownRenderer.section(report)
        #expect(markdown.contains("> ⚠️ the spread is wide — quiet the machine\n>\n> ⚠️ not pinned"), "\(markdown)")
        let cmark = "/usr/bin/cmark-gfm"
        guard FileManager.default.isExecutableFile(atPath: cmark) else {
            Issue.record("cmark-gfm is missing: run scripts/setup")
            return
        }
        let input = TemporaryFolders.path("comment") + ".md"
        try markdown.write(toFile: input, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: input) }
        let html = try Shell.run(["-e", "table", input], executable: cmark).stdout
        let quote = try #require(html.components(separatedBy: "<blockquote>").dropFirst().first)
        let inside = quote.components(separatedBy: "</blockquote>")[0]
        #expect(inside.components(separatedBy: "<p>").count - 1 == 2, "\(inside)")
    }

    @Test func aCauseInTheProgramIsNamedByItsFileName() {
        let cause = StartupCause(
            kind: .swiftLazyGlobal, change: .new, object: StartupCause.executableRole, objectPath: "/ci/head/tool",
            function: "keywordTable", base: nil, head: TimeSummary(samplesMs: [2, 2]),
            difference: TimeDifference(PairedInterval(estimate: 2, low: 1.9, high: 2.1, level: 0.95, count: 8)),
            share: 1, evidence: .traced)
        #expect(cause.objectName == "tool")
        var library = cause
        library.object = "libx.so"
        #expect(library.objectName == "libx.so")
        var unknown = cause
        unknown.objectPath = nil
        #expect(unknown.objectName == StartupCause.executableRole)
    }

    /// The instruction deltas' objects too: the program by its file name in the comment and text.
    @Test func anInstructionDeltaInTheProgramIsNamedByItsFileName() throws {
        let report = try ReportFixtures.compare()
        #expect(report.objectName(StartupCause.executableRole) == "head-app")
        #expect(report.objectName("libx.so") == "libx.so")
    }
}
