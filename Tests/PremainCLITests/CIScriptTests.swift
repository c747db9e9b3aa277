import Foundation
import PremainModel
import PremainTestSupport
import XCTest

/// scripts/ci/premain-pr end to end: two commits of a small git repository (the C pair of
/// samples/pairs), built by the script, audited, diffed, and the comment written.
final class CIScriptTests: XCTestCase {
    func shell(_ command: String, in folder: String) throws -> CLI.Result {
        try CLI.run(["-c", command], in: folder, executable: "/bin/bash")
    }

    func testTwoCommitsOfASampleRepository() throws {
        let root = Repository.root
        let repo = NSTemporaryDirectory() + "premain-ci-repo-\(getpid())"
        try? FileManager.default.removeItem(atPath: repo)
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: repo) }
        let build = """
        #!/usr/bin/env bash
        # Builds out/app and out/lib/ from the pair sources; FLAGS holds -DPREMAIN_HEAD in head.
        set -euo pipefail
        flags=$(cat FLAGS)
        mkdir -p out/lib
        gcc -O1 -I. $flags -fPIC -shared core.c -Wl,-soname,libcore.so -o out/lib/libcore.so
        extra=()
        if [[ -n "$flags" ]]; then
            gcc -O1 -I. -fPIC -shared extra.c -Wl,-soname,libextra.so -o out/lib/libextra.so
            extra=(-lextra -lm)
        fi
        gcc -O1 -I. $flags app.c -Lout/lib -lcore "${extra[@]}" -Wl,--no-as-needed,--enable-new-dtags,-rpath,'$ORIGIN/lib' -o out/app
        """
        let setup = """
        set -e
        cp '\(root)/samples/pairs/'*.c '\(root)/samples/common/selftime.h' .
        cat > build.sh <<'SCRIPT'
        \(build)
        SCRIPT
        printf '' > FLAGS
        git init -q . && git config user.email ci@example.invalid && git config user.name ci
        git add -A && git commit -qm base
        printf -- '-DPREMAIN_HEAD' > FLAGS
        git commit -qam head
        """
        let prepared = try shell(setup, in: repo)
        XCTAssertEqual(prepared.status, 0, prepared.stderr)
        let report = repo + "-report"
        defer { try? FileManager.default.removeItem(atPath: report) }
        // Measured and traced for real: which way the verdict goes depends on the machine, so
        // the exit status and the comment's title are checked against the verdict diff.json holds.
        let result = try CLI.run(
            ["bash", root + "/scripts/ci/premain-pr", "--commits", "HEAD~1", "HEAD",
             "--build", "bash build.sh", "--artifact", "out", "--run", "app", "--runs", "3", "--premain", CLI.binary,
             "--out", report, "--no-post", "--no-config-search"],
            in: repo, executable: "/usr/bin/env")
        let diff = try JSONDecoder().decode(DiffReport.self, from: Data(contentsOf: URL(fileURLWithPath: report + "/diff.json")))
        XCTAssertTrue(DiffVerdicts.exitStatuses(for: diff.verdict.status.rawValue).contains(result.status),
                      "exit \(result.status) for verdict \(diff.verdict.status): \(result.stderr)")
        let comment = try String(contentsOfFile: report + "/comment.md", encoding: .utf8)
        XCTAssertTrue(comment.hasPrefix("<!-- premain-report -->\n## premain: start-up report\n"), comment)
        let title = ["regression": "❌ **Start-up regressed**", "findings": "❌ **Start-up check failed**",
                     "pass": "✅ **No start-up regression**"][diff.verdict.status.rawValue] ?? "?"
        XCTAssertTrue(comment.contains(title), "verdict \(diff.verdict.status):\n" + comment)
        XCTAssertTrue(diff.measured.contains { $0.scope == .milestone && $0.subject == "main" && $0.base != nil && $0.head != nil })
        XCTAssertTrue(comment.contains("| app | changed | +libextra.so<br>+libm.so.6 |"), comment)
        XCTAssertTrue(comment.contains("| libcore.so | changed | – | 15 | 11 → 31, +20 (+181.8 %) ▲ | 1 |"), comment)
        XCTAssertTrue(comment.contains("🆕 static initializer premain\\_extra\\_ctor in libextra.so"), comment)
        // Measured and traced: the timeline, and the new constructor timed by premain trace.
        XCTAssertTrue(comment.contains("| **time to main** |"), comment)
        XCTAssertTrue(comment.contains("| premain\\_extra\\_ctor <sub>in libextra.so</sub> |"), comment)
        XCTAssertTrue(comment.contains("```mermaid\ngantt\n"), comment)
        for file in ["diff.json", "diff.sarif", "base/audit.json", "head/audit.json", "base/measure.json", "head/measure.json",
                     "base/trace.json", "head/trace.json"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: report + "/" + file), file)
        }
        let sarif = try String(contentsOfFile: report + "/diff.sarif", encoding: .utf8)
        XCTAssertEqual(try SARIFValidation.schemaViolations(sarif), [])
        XCTAssertEqual(try SARIFValidation.absoluteURIs(sarif), [])
        let worktrees = try shell("git worktree list | wc -l", in: repo)
        XCTAssertEqual(worktrees.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "1", "temporary worktrees are removed")
    }

    func testArtifactsModeAndUsageErrors() throws {
        let root = Repository.root
        let report = NSTemporaryDirectory() + "premain-ci-artifacts-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let result = try CLI.run(
            [root + "/scripts/ci/premain-pr", "--base", try Samples.path("pairs/aa-1"), "--head", try Samples.path("pairs/aa-2"),
             "--premain", CLI.binary, "--out", report, "--no-post", "--no-config-search"],
            executable: "/bin/bash")
        XCTAssertEqual(result.status, 0, result.stderr)
        let comment = try String(contentsOfFile: report + "/comment.md", encoding: .utf8)
        XCTAssertTrue(comment.contains("No static change in 2 objects."), comment)
        XCTAssertEqual(try SARIFValidation.schemaViolations(try String(contentsOfFile: report + "/diff.sarif", encoding: .utf8)), [])
        let usage = try CLI.run([root + "/scripts/ci/premain-pr", "--base", "x"], executable: "/bin/bash")
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.hasPrefix("premain-pr: error: give --base and --head"), usage.stderr)
    }
}
