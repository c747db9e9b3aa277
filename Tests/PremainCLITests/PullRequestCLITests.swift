import Foundation
import Glibc
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

/// The built `premain pr` on the sample pairs laid out like SwiftPM's build folders (a
/// symlinked `.build/release` full of `.o`, `.pcm` and JSON files), and on two commits of a
/// small git repository. Which verdict a real launch pair gets depends on the machine, so the
/// exit status is checked against the verdict the JSON holds, never the verdict itself.
@Suite(.serialized) struct PullRequestCLITests {
    static func premain(_ arguments: [String], in folder: String? = nil) throws -> CLI.Result {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        return try CLI.run(arguments, in: folder)
    }

    /// Base and head of the C pair, each in a SwiftPM-like folder; `body` gets the two
    /// `.build/release` symlinks and a folder for the outputs.
    static func withPair(_ body: (String, String, String) throws -> Void) throws {
        let root = try BuildFolders.temporaryRoot("pr")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let base = try BuildFolders.swiftPMLike(pairSide: "base", in: root + "/base")
        let head = try BuildFolders.swiftPMLike(pairSide: "head", in: root + "/head")
        try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
        try body(base, head, root + "/out")
    }

    static func exitStatus(for status: PullRequestReport.Verdict.Status) -> Int32 {
        status.exitCode.rawValue
    }

    @Test func symlinkedFoldersWithoutRunWriteEveryFormatAndSayNotMeasured() throws {
        try Self.withPair { base, head, out in
            // Head with a trailing slash: the symlink is followed either way.
            let result = try Self.premain([
                "pr", "--no-config", "--base", base, "--head", head + "/",
                "--markdown", out + "/comment.md", "--sarif", out + "/findings.sarif", "--json", out + "/pr.json",
            ])
            #expect(result.status == 5, "\(result.stderr)")
            #expect(
                result.stdout.hasPrefix("verdict: notMeasured\n  - not measured: no --run given\n"), "\(result.stdout)")
            let report = try JSONRenderer.decode(
                PullRequestReport.self, from: String(contentsOfFile: out + "/pr.json", encoding: .utf8))
            #expect(
                report.verdict.status == .notMeasured && report.compare == nil && report.notMeasured == "no --run given"
            )
            // Only the programs and libraries, not the 3 objects nor the archive, module files and JSON.
            #expect(
                report.diff.objects.filter { $0.place == .project }.map(\.name).sorted() == [
                    "app", "libcore.so", "libextra.so",
                ])
            #expect(report.diff.objects.first { $0.name == "app" }?.kind == .pieExecutable)
            #expect(report.skipped.head.objects == BuildFolders.objectFiles.count)
            #expect(
                report.skipped.head.notReports.map(ObjectName.fileName) == ["description.json", "output-file-map.json"])
            let comment = try String(contentsOfFile: out + "/comment.md", encoding: .utf8)
            #expect(
                comment.hasPrefix(
                    "<!-- premain -->\n## premain: ⚠️ not measured\n\n⚠️ **Start-up not measured**: no \\-\\-run given."),
                "\(comment)")
            #expect(comment.contains("| **app** | changed |"))
            #expect(comment.contains("| libextra.so | 🆕 new |"))
            #expect(comment.contains("| libm.so.6 <sub>system, mapped by app</sub> | 🆕 new |"))
            #expect(comment.contains("Left out (base / head): 3 / 3 relocatable objects (.o, .pcm;"))
            let sarif = try String(contentsOfFile: out + "/findings.sarif", encoding: .utf8)
            #expect(sarif.contains("\"version\" : \"2.1.0\""))
            // --include-objects reads the objects too.
            let all = try Self.premain([
                "pr", "--no-config", "--include-objects", "--base", base, "--head", head, "--json", out + "/all.json",
            ])
            let allReport = try JSONRenderer.decode(
                PullRequestReport.self, from: String(contentsOfFile: out + "/all.json", encoding: .utf8))
            #expect(allReport.diff.objects.contains { $0.name == "app.c.o" }, "\(all.stderr)")
            #expect(allReport.skipped.head.objects == 0)
        }
    }

    @Test func runIsResolvedInsideEachFolderAndCompared() throws {
        try Self.withPair { base, head, out in
            // No `app` on PATH: found in each folder or not at all.
            let result = try Self.premain([
                "pr", "--no-config", "--base", base, "--head", head, "--run", "app",
                "--min-runs", "4", "--max-runs", "4", "--json", out + "/pr.json", "--markdown", out + "/pr.md",
            ])
            let report = try JSONRenderer.decode(
                PullRequestReport.self, from: String(contentsOfFile: out + "/pr.json", encoding: .utf8))
            #expect(result.status == Self.exitStatus(for: report.verdict.status), "\(report.verdict) \(result.stderr)")
            let compare = try #require(report.compare, "\(result.stderr)")
            #expect(report.command == ["app"])
            #expect(compare.base.path.hasPrefix(base) && compare.base.path.hasSuffix("/app"))
            #expect(compare.head.path.hasPrefix(head) && compare.runs.perSide == 4)
            let comment = try String(contentsOfFile: out + "/pr.md", encoding: .utf8)
            #expect(comment.contains(" for app: ") || comment.contains(" for app · "), "\(comment.prefix(400))")
            #expect(comment.contains("4 runs per side, paired and interleaved"))
            #expect(!comment.contains("not measured"))
        }
    }

    @Test func missingProgramIsAnErrorNamingTheFolderAndTheReportStillSaysWhy() throws {
        try Self.withPair { base, head, out in
            let result = try Self.premain([
                "pr", "--no-config", "--base", base, "--head", head, "--run", "ls", "--markdown", out + "/pr.md",
            ])
            #expect(result.status == 3)
            #expect(result.stderr.contains("Error: base: ls in \(base): no such executable file"), "\(result.stderr)")
            let comment = try String(contentsOfFile: out + "/pr.md", encoding: .utf8)
            #expect(comment.contains("⚠️ **Start-up of ls not measured**: base\\: ls in "), "\(comment)")
        }
    }

    @Test func usageErrors() throws {
        let folder = try Samples.path("pairs/aa-1")
        let cases: [([String], String)] = [
            (["pr"], "give --base <folder> and --head <folder>"),
            (["pr", "--base", folder], "--base needs --head <folder>"),
            (["pr", "--base", folder, "--commits", "a", "b"], "--base and --commits exclude each other"),
            (["pr", "--build", "make"], "--build needs --commits <base> <head>"),
            (["pr", "--base", folder, "--head", folder, "stray"], "unexpected argument 'stray'"),
            (["pr", "--base", folder, "--head", "/nonexistent"], "--head '/nonexistent': no such folder"),
            (["pr", "--base", folder, "--head", folder + "/app"], "is not a folder"),
            (["pr", "--commits", "HEAD~1", "HEAD"], "--commits needs --build"),
            (["pr", "--commits", "HEAD~1", "HEAD", "--build", "make"], "--commits needs --artifact"),
            (["pr", "--commits", "HEAD~1"], "--commits takes 2 values: --commits <base> <head>"),
            (["pr", "--base", folder, "--head", folder, "--", "x"], "give --run NAME"),
            (["pr", "--base", folder, "--head", folder, "--build", "make"], "--build goes with --commits"),
        ]
        for (arguments, message) in cases {
            let result = try Self.premain(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let help = try Self.premain(["pr", "--help"])
        #expect(
            help.status == 0 && help.stdout.contains("USAGE: premain pr") && help.stdout.contains("--include-objects"))
    }

    /// Two commits of a small git repository (the C pair's sources; head adds libextra.so),
    /// built by `pr` in temporary worktrees, compared with --run, the base cached by its SHA.
    @Test func twoCommitsAreBuiltInWorktreesAndTheBaseIsCached() throws {
        let repo = try BuildFolders.temporaryRoot("pr-repo")
        defer { try? FileManager.default.removeItem(atPath: repo) }
        let samples = Repository.root + "/samples"
        let setup = """
            set -e
            cp '\(samples)/pairs/'*.c '\(samples)/common/selftime.h' .
            cat > build.sh <<'SCRIPT'
            set -eu
            flags=$(cat FLAGS)
            mkdir -p out/lib out/obj
            gcc -O1 -I. $flags -fPIC -c core.c -o out/obj/core.o
            gcc -shared out/obj/core.o -Wl,-soname,libcore.so -o out/lib/libcore.so
            extra=""
            if [ -n "$flags" ]; then
                gcc -O1 -I. -fPIC -shared extra.c -Wl,-soname,libextra.so -o out/lib/libextra.so
                extra="-lextra -lm"
            fi
            gcc -O1 -I. $flags app.c -Lout/lib -lcore $extra -Wl,--no-as-needed,--enable-new-dtags,-rpath,'$ORIGIN/lib' -o out/app
            SCRIPT
            printf '' > FLAGS
            git init -q . && git config user.email ci@example.invalid && git config user.name ci
            git add -A && git commit -qm base
            printf -- '-DPREMAIN_HEAD' > FLAGS
            git commit -qam head
            """
        let prepared = try CLI.run(["-c", setup], in: repo, executable: "/bin/bash")
        try #require(prepared.status == 0, "\(prepared.stderr)")
        let cache = repo + "-cache"
        defer { try? FileManager.default.removeItem(atPath: cache) }
        let arguments = [
            "pr", "--no-config", "--commits", "HEAD~1", "HEAD", "--build", "sh build.sh", "--artifact", "out",
            "--cache-dir", cache, "--run", "app", "--min-runs", "4", "--max-runs", "4", "--json", repo + "-pr.json",
        ]
        defer { try? FileManager.default.removeItem(atPath: repo + "-pr.json") }
        let first = try Self.premain(arguments, in: repo)
        let report = try JSONRenderer.decode(
            PullRequestReport.self, from: String(contentsOfFile: repo + "-pr.json", encoding: .utf8))
        #expect(first.status == Self.exitStatus(for: report.verdict.status), "\(report.verdict) \(first.stderr)")
        let baseSHA = try CLI.run(["git", "rev-parse", "HEAD~1"], in: repo, executable: "/usr/bin/env").stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(report.commits?.base == baseSHA)
        #expect(report.compare != nil)
        #expect(report.diff.objects.first { $0.name == "libextra.so" }?.status == .added)
        #expect(report.skipped.base.objects == 1)
        #expect(first.stderr.contains("building: sh build.sh"))
        // The worktrees are gone; both commits' artifacts are cached by SHA.
        let worktrees = try CLI.run(["-c", "git worktree list | wc -l"], in: repo, executable: "/bin/bash")
        #expect(worktrees.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
        #expect(FileManager.default.fileExists(atPath: cache + "/" + baseSHA + "/app"))
        // The second run takes both sides from the cache and builds nothing.
        let second = try Self.premain(arguments, in: repo)
        #expect(second.stderr.contains("artifacts from the cache"), "\(second.stderr)")
        #expect(!second.stderr.contains("building:"))
        // A build that fails is exit 4 and names the side.
        let broken = try Self.premain(
            ["pr", "--commits", "HEAD~1", "HEAD", "--build", "exit 7", "--artifact", "out"], in: repo)
        #expect(broken.status == 4)
        #expect(broken.stderr.contains("Error: base: the build command exited with status 7"), "\(broken.stderr)")
    }

    /// A git repository of two commits in `root/repo`, for the tests of `--commits` that need
    /// no real build.
    static func twoCommitRepository(in root: String) throws -> String {
        let repo = root + "/repo"
        try FileManager.default.createDirectory(atPath: repo, withIntermediateDirectories: true)
        let setup = """
            git init -q . && git config user.email ci@example.invalid && git config user.name ci && \
            echo one > f && git add f && git commit -qm base && echo two > f && git commit -qam head
            """
        let made = try CLI.run(["-c", setup], in: repo, executable: "/bin/bash")
        try #require(made.status == 0, "\(made.stderr)")
        return repo
    }

    /// What a `pr --commits` run in `repo` with TMPDIR `temporary` may have left: registered
    /// worktrees, entries of the temporary folder, and live processes whose command line or
    /// executable names `root` (the build, its children, git, the watchdog). `[]` when nothing.
    static func leftovers(repo: String, temporary: String, root: String) -> [String] {
        let manager = FileManager.default
        var found = ((try? manager.contentsOfDirectory(atPath: repo + "/.git/worktrees")) ?? []).map {
            "worktree \($0)"
        }
        found += ((try? manager.contentsOfDirectory(atPath: temporary)) ?? []).map { "temporary \($0)" }
        let me = getpid()
        found += ProcessScan.all().filter { entry in
            entry.pid != me && entry.state != "Z"
                && (entry.commandLine.contains(root) || entry.executable.hasPrefix(root))
        }.map { "process \($0.pid) \($0.commandLine)" }
        return found
    }

    /// Issue 23, defect 9: SIGINT, SIGTERM, SIGHUP (also to premain's process group), SIGKILL
    /// or `timeout` during the build or the measuring left the worktrees registered, the
    /// `premain-pr-XXXXXX` folder, and `/bin/sh -c BUILD` with its children running. Now the
    /// build runs in its own process group, which the guard kills, and the watchdog removes the
    /// worktrees and the folder, after a SIGKILL too. Asserts what is left, never a time.
    @Test func anInterruptedPullRequestLeavesNothingBehind() throws {
        let root = try BuildFolders.temporaryRoot("pr-interrupted")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let repo = try Self.twoCommitRepository(in: root)
        let temporary = root + "/tmp"
        let marks = root + "/marks"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        // The build records its shell and its child, then waits for the child.
        let slowBuild = "echo $$ > '\(marks)/build.pid'; sleep 30 & echo $! > '\(marks)/sleep.pid'; wait"
        let build = ["pr", "--no-config", "--commits", "HEAD~1", "HEAD", "--build", slowBuild, "--artifact", "out"]
        let measuring = [
            "pr", "--no-config", "--commits", "HEAD~1", "HEAD", "--build", "mkdir out && cp /bin/sleep out/sleeper",
            "--artifact", "out", "--run", "sleeper", "--", "30",
        ]
        enum Moment { case build, measuring }
        let cases: [(name: String, moment: Moment, signal: Int32, toGroup: Bool)] = [
            ("SIGINT in the build", .build, SIGINT, false), ("SIGTERM in the build", .build, SIGTERM, false),
            ("SIGHUP in the build", .build, SIGHUP, false), ("SIGINT to the group in the build", .build, SIGINT, true),
            ("SIGTERM to the group in the build", .build, SIGTERM, true),
            ("SIGKILL in the build", .build, SIGKILL, false),
            ("SIGINT while measuring", .measuring, SIGINT, false),
            ("SIGKILL while measuring", .measuring, SIGKILL, false),
        ]
        func pidIn(_ file: String) -> pid_t? {
            (try? String(contentsOfFile: marks + "/" + file, encoding: .utf8)).flatMap {
                pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        for (name, moment, signal, toGroup) in cases {
            try? FileManager.default.removeItem(atPath: marks)
            try FileManager.default.createDirectory(atPath: marks, withIntermediateDirectories: true)
            // Foundation's Process makes premain lead a process group of its own, which the test
            // may signal whole.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = moment == .build ? build : measuring
            process.currentDirectoryURL = URL(fileURLWithPath: repo)
            process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary]) { $1 }
            let log = marks + "/stderr"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            try process.run()
            try #require(
                getpgid(process.processIdentifier) == process.processIdentifier, "premain leads no process group")
            func said() -> String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            let started = Poll.until {
                switch moment {
                case .build: return pidIn("sleep.pid") != nil
                case .measuring:
                    return ProcessScan.all().contains {
                        $0.executable.hasPrefix(temporary) && $0.executable.hasSuffix("/sleeper")
                    }
                }
            }
            #expect(started, "\(name): never got there: \(said())")
            kill(toGroup ? -process.processIdentifier : process.processIdentifier, signal)
            #expect(Poll.exit(of: process), "\(name): premain did not end: \(said())")
            #expect(
                process.terminationReason == .uncaughtSignal && process.terminationStatus == signal,
                "\(name): \(process.terminationStatus): \(said())")
            // SIGKILL leaves the removal to the watchdog, which runs once premain is gone.
            #expect(
                Poll.until { Self.leftovers(repo: repo, temporary: temporary, root: root).isEmpty },
                "\(name): \(Self.leftovers(repo: repo, temporary: temporary, root: root))")
            for pid in [pidIn("build.pid"), pidIn("sleep.pid")].compactMap({ $0 }) {
                #expect(
                    !(ProcessScan.all().contains { $0.pid == pid && $0.state != "Z" }),
                    "\(name): process \(pid) of the build is alive")
            }
        }
        let worktrees = try CLI.run(["-c", "git worktree list | wc -l"], in: repo, executable: "/bin/bash")
        #expect(worktrees.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    /// `--build-timeout` ends a build that takes longer (its process group killed): exit 4
    /// naming the side, and nothing left; `timeout` around premain leaves nothing either.
    @Test func aBuildPastBuildTimeoutIsEndedAndRemoved() throws {
        let root = try BuildFolders.temporaryRoot("pr-build-timeout")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let repo = try Self.twoCommitRepository(in: root)
        let temporary = root + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let build = "sleep 30 & wait; : \(root)"
        let ended = try CLI.run(
            [
                "pr", "--no-config", "--commits", "HEAD~1", "HEAD", "--build", build, "--artifact", "out",
                "--build-timeout", "1",
            ], environment: ["TMPDIR": temporary], in: repo)
        #expect(ended.status == 4, "\(ended.stderr)")
        #expect(
            ended.stderr.contains("Error: base: the build command did not finish within --build-timeout 1 s in "),
            "\(ended.stderr)")
        #expect(
            Self.leftovers(repo: repo, temporary: temporary, root: root).isEmpty,
            "\(Self.leftovers(repo: repo, temporary: temporary, root: root))")
        let timedOut = try CLI.run(
            [
                "-c", #"exec timeout 2 "$@""#, "sh", CLI.binary, "pr", "--no-config", "--commits", "HEAD~1", "HEAD",
                "--build", build, "--artifact", "out",
            ],
            environment: ["TMPDIR": temporary], in: repo, executable: "/bin/sh")
        #expect(timedOut.status == 124, "\(timedOut.stderr)")
        #expect(
            Poll.until { Self.leftovers(repo: repo, temporary: temporary, root: root).isEmpty },
            "\(Self.leftovers(repo: repo, temporary: temporary, root: root))")
        for (arguments, message) in [
            (["--base", repo, "--head", repo, "--build-timeout", "5"], "--build-timeout goes with --commits"),
            (
                ["--commits", "HEAD~1", "HEAD", "--build", "true", "--artifact", "out", "--build-timeout", "0"],
                "--build-timeout takes a number"
            ),
        ] {
            let refused = try Self.premain(["pr"] + arguments, in: repo)
            #expect(refused.status == 64 && refused.stderr.contains(message), "\(refused.stderr)")
        }
    }

    @Test func checkOfABuildFolderSkipsSwiftPMJSON() throws {
        let root = try BuildFolders.temporaryRoot("check-json")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let release = try BuildFolders.swiftPMLike(pairSide: "base", in: root)
        let result = try Self.premain(["check", "--no-config", release + "/"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "Note: skipped 3 relocatable objects (.o, .pcm; --include-objects adds them), 2 JSON files that are not a premain report (description.json, output-file-map.json)"
            ),
            "\(result.stderr)")
        #expect(!result.stderr.contains("Error:"))
        // A JSON file of its own is still a premain report or an error.
        let named = try Self.premain(["check", "--no-config", release + "/app.build/output-file-map.json"])
        #expect(named.status == 3)
    }
}
