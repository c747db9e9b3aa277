import Foundation
import PremainTestSupport
import Testing

@testable import PremainJudge
@testable import PremainModel

/// Issue 25: one verdict vocabulary, each status knowing its exit code, and one list of exit
/// codes that README.md and the schemas are checked against (never written again here).
struct VerdictStatusTests {
    /// README.md's "Exit codes" table is `ExitCode.markdownTable`; `PREMAIN_UPDATE_GOLDEN=1`
    /// writes it there.
    @Test func readmeExitCodeTableIsTheExitCodeList() throws {
        let path = Repository.root + "/README.md"
        let readme = try String(contentsOfFile: path, encoding: .utf8)
        let start = try #require(readme.range(of: "| code | meaning |"))
        let end = readme.range(of: "\n\n", range: start.lowerBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
        if ProcessInfo.processInfo.environment["PREMAIN_UPDATE_GOLDEN"] == "1" {
            try readme.replacingCharacters(in: start.lowerBound..<end, with: ExitCode.markdownTable)
                .write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(
            String(readme[start.lowerBound..<end]) == ExitCode.markdownTable,
            "README.md's exit codes differ from ExitCode; rerun with PREMAIN_UPDATE_GOLDEN=1 to update")
    }

    /// Each report's schema lists exactly the statuses it writes.
    @Test func schemasListTheStatusesEachReportWrites() throws {
        func statuses(_ kind: ReportKind, _ path: [String]) throws -> Set<String> {
            let data = try Data(
                contentsOf: URL(fileURLWithPath: Repository.root + "/docs/schemas/\(kind.rawValue).schema.json"))
            var node = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            for key in path { node = node?[key] as? [String: Any] }
            return Set(try #require(node?["enum"] as? [String], "\(kind)"))
        }
        for kind in [ReportKind.compare, .fieldCompare] {
            #expect(
                try statuses(kind, ["properties", "verdict"]) == Set(VerdictStatus.written(by: kind).map(\.rawValue)),
                "\(kind)")
        }
        for kind in [ReportKind.diff, .pr] {
            #expect(
                try statuses(kind, ["properties", "verdict", "properties", "status"])
                    == Set(VerdictStatus.written(by: kind).map(\.rawValue)), "\(kind)")
        }
    }

    /// A pull request's verdict is the worst of its parts, in the parts' own words (`pass` for
    /// those that fail nothing), so its exit code is the worst part's.
    @Test func pullRequestVerdictKeepsTheWordsOfItsParts() {
        for status in VerdictStatus.allCases {
            let passing = PullRequestBuilder.passing(status)
            #expect(
                VerdictStatus.written(by: .pr).contains(passing) || status == .unconfirmed && passing == .pass,
                "\(status)")
            #expect(passing.exitCode == status.exitCode, "\(status)")
        }
        #expect(
            VerdictStatus.runFailed.worse(.regression) == .runFailed && VerdictStatus.pass.worse(.findings) == .findings
        )
        #expect(VerdictStatus.findings.exitCode(failOn: nil) == .success)
        #expect(VerdictStatus.regression.exitCode(failOn: nil) == VerdictStatus.regression.exitCode)
    }
}
