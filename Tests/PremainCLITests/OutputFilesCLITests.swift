import Foundation
import PremainTestSupport
import Testing

/// Every file premain writes goes through one writer (issue 34, defects 1–4): an output that
/// names an input or another output is refused before any work (exit 64), one output that
/// cannot be written does not lose the others (exit 70), and a write that fails leaves the
/// previous file as it was, with no partial or temporary file beside it. The programs are copies
/// of /usr/bin/true (a launch costs little), the reports made by one short measure.
@Suite(.serialized) struct OutputFilesCLITests {
    /// A folder holding `app` (a copy of /usr/bin/true), `base/app` and `head/app` (pr's
    /// artifact folders), `reports/ls.json` (a measure report whose objects fit a cost model)
    /// and `premain.json`.
    static func workspace(_ name: String, report: Bool = false) throws -> String {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        let folder = try TemporaryFolders.make(name)
        let manager = FileManager.default
        try manager.copyItem(atPath: "/usr/bin/true", toPath: folder + "/app")
        for side in ["base", "head", "reports"] {
            try manager.createDirectory(atPath: folder + "/" + side, withIntermediateDirectories: true)
        }
        try manager.copyItem(atPath: "/usr/bin/true", toPath: folder + "/base/app")
        try manager.copyItem(atPath: "/usr/bin/true", toPath: folder + "/head/app")
        try "{}\n".write(toFile: folder + "/premain.json", atomically: true, encoding: .utf8)
        if report {
            let measured = try CLI.run([
                "measure", "--runs", "2", "--warmup", "0", "--format", "json", "--output",
                folder + "/reports/ls.json", "--", "/usr/bin/ls",
            ])
            try #require(measured.status == 0, "\(measured.stderr)")
        } else {
            try "{}\n".write(toFile: folder + "/reports/ls.json", atomically: true, encoding: .utf8)
        }
        return folder
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Defect 1 on measure: `measure --output app -- ./app` replaced the program with the report.
    @Test func measureOutputNamingTheProgramIsRefused() throws {
        let folder = try Self.workspace("outputs-program")
        let before = Self.bytes(folder + "/app")
        for option in ["--output", "--export-bmf", "--export-trace", "--export-openmetrics"] {
            let result = try CLI.run(["measure", "--runs", "1", option, "app", "--", "./app"], in: folder)
            #expect(result.status == 64, "\(option): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: \(option) 'app' is also an input"), "\(result.stderr)")
            #expect(Self.bytes(folder + "/app") == before, "\(option) replaced the program")
        }
    }

    /// Defect 1 on every other command: an output naming a program, a report, a model, a
    /// config, a database or a file of pr's folders (also through a symlink or a hard link) is
    /// refused before any work, and the file stays.
    @Test func outputsNamingAnInputAreRefusedOnEveryCommand() throws {
        let folder = try Self.workspace("outputs-inputs")
        try FileManager.default.createSymbolicLink(atPath: folder + "/alias", withDestinationPath: "app")
        try FileManager.default.linkItem(atPath: folder + "/reports/ls.json", toPath: folder + "/hard.json")
        let cases: [(arguments: [String], option: String, file: String)] = [
            (["trace", "--runs", "1", "--output", "alias", "--", "./app"], "--output", "app"),
            (["trace", "--runs", "1", "--export-trace", "app", "--", "./app"], "--export-trace", "app"),
            (
                ["compare", "--no-config", "--export-openmetrics", "head/app", "base/app", "head/app"],
                "--export-openmetrics", "head/app"
            ),
            (["compare", "--config", "premain.json", "-o", "premain.json", "app", "app"], "--output", "premain.json"),
            (
                ["pr", "--no-config", "--base", "base", "--head", "head", "--markdown", "head/app"], "--markdown",
                "head/app"
            ),
            (["pr", "--no-config", "--base", "base", "--head", "head", "--json", "base/app"], "--json", "base/app"),
            (
                ["audit", "--estimate", "reports/", "--save-model", "reports/ls.json", "app"], "--save-model",
                "reports/ls.json"
            ),
            (["audit", "--estimate", "reports", "--save-model", "app", "app"], "--save-model", "app"),
            (["audit", "--estimate", "reports", "--output", "hard.json", "app"], "--output", "reports/ls.json"),
            (["check", "--config", "premain.json", "--output", "premain.json", "app"], "--output", "premain.json"),
            (
                ["check", "--no-config", "--output", "hard.json", "reports/ls.json", "app"], "--output",
                "reports/ls.json"
            ),
            (
                ["diff", "--config", "premain.json", "--output", "premain.json", "app", "app"], "--output",
                "premain.json"
            ),
            (["history", "show", "--db", "reports/ls.json", "--output", "hard.json"], "--output", "reports/ls.json"),
        ]
        for (arguments, option, file) in cases {
            let before = Self.bytes(folder + "/" + file)
            let result = try CLI.run(arguments, in: folder)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("Error: \(option) '") && result.stderr.contains("is also an input"),
                "\(arguments): \(result.stderr)")
            #expect(Self.bytes(folder + "/" + file) == before, "\(arguments) changed \(file)")
        }
    }

    /// Defect 1 on the load closure: a library the program loads (found through its
    /// `$ORIGIN` run path) is an input of audit, check and diff before any work, and of measure
    /// once the runs said which libraries were loaded.
    @Test func outputNamingALibraryOfTheClosureIsRefused() throws {
        let folder = try Self.workspace("outputs-closure")
        try FileManager.default.createDirectory(atPath: folder + "/lib", withIntermediateDirectories: true)
        try "int f(void) { return 0; }\n".write(toFile: folder + "/f.c", atomically: true, encoding: .utf8)
        try "int f(void);\nint main(void) { return f(); }\n".write(
            toFile: folder + "/m.c", atomically: true, encoding: .utf8)
        for build in [
            ["gcc", "-shared", "-fPIC", "-o", "lib/libf.so", "f.c"],
            ["gcc", "-o", "prog", "m.c", "-Llib", "-lf", "-Wl,-rpath,$ORIGIN/lib"],
        ] {
            let built = try Shell.run(build, in: folder)
            try #require(built.status == 0, "\(build): \(built.stderr)")
        }
        let before = Self.bytes(folder + "/lib/libf.so")
        for arguments in [
            ["audit", "--output", "lib/libf.so", "prog"], ["check", "--no-config", "-o", "lib/libf.so", "prog"],
            ["diff", "--no-config", "--output", "lib/libf.so", "prog", "prog"],
            ["measure", "--runs", "1", "--warmup", "0", "--export-bmf", "lib/libf.so", "--", "./prog"],
        ] {
            let result = try CLI.run(arguments, in: folder)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("is also an input"), "\(arguments): \(result.stderr)")
            #expect(Self.bytes(folder + "/lib/libf.so") == before, "\(arguments) replaced the library")
        }
    }

    /// Defect 2: `measure --output x --export-bmf x --export-openmetrics x` kept the last write;
    /// two outputs naming one file (also as `./x`, or one not there yet) are refused.
    @Test func twoOutputsNamingOnePathAreRefused() throws {
        let folder = try Self.workspace("outputs-twice")
        try "previous\n".write(toFile: folder + "/kept", atomically: true, encoding: .utf8)
        let cases: [[String]] = [
            [
                "measure", "--runs", "1", "--output", "x", "--export-bmf", "x", "--export-openmetrics", "x", "--",
                "./app",
            ],
            ["measure", "--runs", "1", "--output", "kept", "--export-trace", "./kept", "--", "./app"],
            ["compare", "--no-config", "--export-bmf", "x", "--export-benchmark-action", "base/../x", "app", "app"],
            ["trace", "--runs", "1", "--output", "x", "--export-trace", "x", "--", "./app"],
            [
                "pr", "--no-config", "--base", "base", "--head", "head", "--markdown", "x", "--json", "x", "--sarif",
                "x",
            ],
            ["audit", "--estimate", "reports", "--save-model", "x", "--output", "./x", "app"],
        ]
        for arguments in cases {
            let result = try CLI.run(arguments, in: folder)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("name the same file"), "\(arguments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/x"), "\(arguments) wrote x")
            #expect(Self.bytes(folder + "/kept") == Data("previous\n".utf8))
        }
    }

    /// Defect 3: `measure --export-bmf nodir/b.json --output ok.json` wrote no ok.json (exit 70).
    /// Every output that can be written is, each failure is one line, and the exit is 70.
    @Test func oneUnwritableOutputDoesNotLoseTheOthers() throws {
        let folder = try Self.workspace("outputs-one-fails")
        try "a file, not a folder\n".write(toFile: folder + "/file", atomically: true, encoding: .utf8)
        let measured = try CLI.run(
            [
                "measure", "--runs", "1", "--warmup", "0", "--export-bmf", "nodir/b.json", "--output", "ok.json",
                "--format", "json", "--export-trace", "nodir/t.json", "--export-openmetrics", "m.txt", "--", "./app",
            ], in: folder)
        #expect(measured.status == 70, "\(measured.stderr)")
        #expect(
            measured.stderr
                == "Error: cannot write nodir/t.json: no such file or directory\n"
                + "Error: cannot write nodir/b.json: no such file or directory\n")
        #expect(FileManager.default.fileExists(atPath: folder + "/ok.json"))
        #expect(FileManager.default.fileExists(atPath: folder + "/m.txt"))
        let pr = try CLI.run(
            [
                "pr", "--no-config", "--base", "base", "--head", "head", "--markdown", "file/pr.md", "--json",
                "pr.json",
                "--sarif", "pr.sarif",
            ], in: folder)
        #expect(pr.status == 70, "\(pr.stderr)")
        #expect(pr.stderr.contains("Error: cannot write file/pr.md: not a directory\n"), "\(pr.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/pr.json"))
        #expect(FileManager.default.fileExists(atPath: folder + "/pr.sarif"))
    }

    /// `true` when this process may mount a tmpfs in a private mount namespace.
    static let canMountTmpfs: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        return (try? Shell.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"]))?.status == 0
    }()

    /// Defect 4 and the done-when item: every output of every command written into a full file
    /// system (a 256 KiB tmpfs, filled, in a private mount namespace) fails with exit 70, each
    /// previous file is intact, and nothing else (a partial or temporary file) is left.
    @Test(.enabled(if: canMountTmpfs, "needs root and unshare -m to mount a small tmpfs (run as root in CI)"))
    func failedWriteKeepsThePreviousFile() throws {
        let folder = try Self.workspace("outputs-full", report: true)
        let database = folder + "/history.db"
        let added = try CLI.run(["history", "add", folder + "/reports/ls.json", "--db", database])
        try #require(added.status == 0, "\(added.stderr)")
        let full = folder + "/full"
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        let premain = CLI.binary
        let runs = ["--min-runs", "2", "--max-runs", "2", "--no-explain"]
        let commands: [(name: String, arguments: [String], outputs: [String])] = [
            ("audit", ["audit", "--output", "F/audit.txt", "app"], ["audit.txt"]),
            ("audit json", ["audit", "--format", "json", "--output", "F/audit.json", "app", "base"], ["audit.json"]),
            (
                "audit model",
                ["audit", "--estimate", "reports", "--save-model", "F/model.json", "--output", "F/a.txt", "app"],
                ["model.json", "a.txt"]
            ),
            (
                "check", ["check", "--no-config", "--format", "sarif", "--output", "F/check.sarif", "app"],
                ["check.sarif"]
            ),
            (
                "diff", ["diff", "--no-config", "--format", "json", "--output", "F/diff.json", "app", "app"],
                ["diff.json"]
            ),
            (
                "measure",
                [
                    "measure", "--runs", "1", "--warmup", "0", "--output", "F/measure.json", "--export-trace",
                    "F/m-trace.json",
                    "--export-bmf", "F/m-bmf.json", "--export-benchmark-action", "F/m-action.json",
                    "--export-openmetrics", "F/m-metrics.txt", "--", "./app",
                ], ["measure.json", "m-trace.json", "m-bmf.json", "m-action.json", "m-metrics.txt"]
            ),
            (
                "trace",
                ["trace", "--runs", "1", "--output", "F/trace.txt", "--export-trace", "F/t-trace.json", "--", "./app"],
                ["trace.txt", "t-trace.json"]
            ),
            (
                "compare",
                ["compare", "--no-config"] + runs + [
                    "--output", "F/compare.txt", "--export-trace", "F/c-trace.json", "--export-bmf", "F/c-bmf.json",
                    "--export-benchmark-action", "F/c-action.json", "--export-openmetrics", "F/c-metrics.txt",
                    "base/app", "head/app",
                ], ["compare.txt", "c-trace.json", "c-bmf.json", "c-action.json", "c-metrics.txt"]
            ),
            (
                "pr",
                ["pr", "--no-config", "--base", "base", "--head", "head", "--run", "app"] + runs + [
                    "--markdown", "F/pr.md", "--json", "F/pr.json", "--sarif", "F/pr.sarif", "--github", "F/pr.github",
                    "--codequality", "F/pr.cq.json", "--export-bmf", "F/p-bmf.json",
                    "--export-benchmark-action", "F/p-action.json", "--export-openmetrics", "F/p-metrics.txt",
                ],
                [
                    "pr.md", "pr.json", "pr.sarif", "pr.github", "pr.cq.json", "p-bmf.json", "p-action.json",
                    "p-metrics.txt",
                ]
            ),
            ("history", ["history", "show", "--db", database, "--output", "F/history.txt"], ["history.txt"]),
        ]
        let outputs = commands.flatMap(\.outputs)
        func quoted(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var script = """
            set -u
            mount -t tmpfs -o size=256k tmpfs \(quoted(full)) || exit 90
            cd \(quoted(folder))
            for name in \(outputs.map(quoted).joined(separator: " ")); do echo "previous $name" > "full/$name"; done
            dd if=/dev/zero of=full/fill bs=1k 2>/dev/null
            echo "free: $(df --output=avail full | tail -1 | tr -d ' ')"

            """
        for command in commands {
            let arguments = command.arguments.map { $0.hasPrefix("F/") ? "full/" + $0.dropFirst(2) : $0 }
            script += "\(quoted(premain)) \(arguments.map(quoted).joined(separator: " ")) >/dev/null 2>&1\n"
            script += "echo \(quoted("status " + command.name)): $?\n"
        }
        script += """
            for name in $(ls -A full); do [ "$name" = fill ] || echo "file $name: $(cat "full/$name")"; done

            """
        let result = try Shell.run(["unshare", "-m", "sh", "-c", script])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "free: 0", "\(lines.first ?? "")")
        for command in commands {
            #expect(lines.contains("status \(command.name): 70"), "\(command.name): \(result.stdout)")
        }
        // Each previous file as it was, and nothing else: no partial file, no temporary file.
        #expect(
            lines.filter { $0.hasPrefix("file ") }.sorted()
                == outputs.map { "file \($0): previous \($0)" }.sorted(), "\(result.stdout)")
    }
}
