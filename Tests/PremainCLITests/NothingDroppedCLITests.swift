import Foundation
import PremainTestSupport
import Testing

/// Defects of issue 23 as a user meets them: a file with an odd name or place is read (or named
/// in an error), never silently left out; a closed stdout is one error line, never a SIGPIPE
/// death; an option that would leave the artifact folder or overwrite an input is refused.
@Suite struct NothingDroppedCLITests {
    /// A new temporary folder; the caller removes it (`defer`).
    static func folder(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "premain-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs `script` with bash, `$0` the built premain and `$1` `folder`: names with bytes that
    /// are not UTF-8 are written in the script (`$'\xff'`), which `Process` cannot pass.
    static func bash(_ script: String, _ folder: String) throws -> ShellResult {
        try Shell.run(["timeout", "120", "bash", "-c", script, CLI.binary, folder])
    }

    /// A shared library with text relocations (a non-PIC object linked with -shared) at
    /// `$1/<name>`, `name` in bash quoting.
    static func makeTextrelLibrary(in folder: String, named name: String) throws {
        try "int x = 1; int *p = &x; int f(void) { return *p; }\n"
            .write(toFile: folder + "/textrel.c", atomically: true, encoding: .utf8)
        let build = try bash(
            """
            set -e
            gcc -c -fno-PIC -mcmodel=large -O0 "$1/textrel.c" -o "$1/textrel.o"
            gcc -shared "$1/textrel.o" -o "$1"/\(name) 2>/dev/null
            rm "$1/textrel.c" "$1/textrel.o"
            """, folder)
        try #require(build.status == 0, "\(build.stderr)")
    }

    // 1. A file whose name is not UTF-8 was left out of folders, and "no such file" when named.
    @Test func nonUTF8FileNameIsReadNotDropped() throws {
        let root = try Self.folder("non-utf8-name")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let base = root + "/base"
        let head = root + "/head"
        let zlib = URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/libz.so.1").resolvingSymlinksInPath().path
        for side in [base, head] {
            try FileManager.default.createDirectory(atPath: side, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: zlib, toPath: side + "/libz.so.1")
        }
        try Self.makeTextrelLibrary(in: head, named: "lib$'\\xff'bad.so")
        let shown = "lib\\xffbad.so"

        let check = try Self.bash(#""$0" check --no-config "$1/head""#, root)
        #expect(check.status == 1, "the TEXTREL library is found: \(check.stdout) \(check.stderr)")
        #expect(check.stdout.contains("error: [textrel] \(shown)"), "\(check.stdout)")

        let audit = try Self.bash(#""$0" audit --no-closure --format json "$1/head""#, root)
        #expect(audit.status == 0, "\(audit.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])
        let paths = (report["binaries"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(paths.contains(head + "/" + shown), "shown escaped in JSON: \(paths)")

        let named = try Self.bash(#""$0" audit --no-closure "$1/head/lib"$'\xff'"bad.so""#, root)
        #expect(named.status == 0, "named on the command line it is read: \(named.stderr)")
        #expect(named.stdout.hasPrefix(head + "/" + shown + "\n"), "\(named.stdout.prefix(200))")

        let diff = try Self.bash(#""$0" diff --no-config "$1/base" "$1/head""#, root)
        #expect(diff.stdout.contains("\(shown) (added)"), "\(diff.stdout)")

        // From the folder: SARIF points only at files inside the checkout (here, the current folder).
        let pr = try Self.bash(
            #"cd "$1" && "$0" pr --no-config --base base --head head --sarif out.sarif --markdown out.md"#, root)
        #expect(pr.status == 1, "a new error finding: \(pr.stderr)")
        let sarif = try String(contentsOfFile: root + "/out.sarif", encoding: .utf8)
        #expect(sarif.contains("lib%FFbad.so"), "the URI has the byte percent-encoded")
        let markdown = try String(contentsOfFile: root + "/out.md", encoding: .utf8)
        #expect(markdown.contains("lib\\\\xffbad.so"), "Markdown shows \\xff")
    }

    // 1. The same bytes reach a launched program: its path and its arguments.
    @Test func nonUTF8ProgramAndArgumentAreLaunchedAsBytes() throws {
        let root = try Self.folder("non-utf8-launch")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let made = try Self.bash(
            """
            printf '#!/bin/sh\\nprintf %%s "$1" | od -An -tx1 | tr -d " \\\\n" > "$(dirname "$0")/argument"\\n' > "$1"/p$'\\xfe'
            chmod +x "$1"/p$'\\xfe'
            "$0" measure --runs 1 --warmup 0 -- "$1"/p$'\\xfe' a$'\\xff'b
            """, root)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.hasPrefix("premain measure: \(root)/p\\xfe"), "\(made.stdout.prefix(200))")
        #expect(try String(contentsOfFile: root + "/argument", encoding: .utf8) == "61ff62")
    }

    // 4. A library deeper than PATH_MAX in a folder was left out: check passed with 0 findings.
    @Test func pathLongerThanPathMaxIsAnErrorNotDropped() throws {
        let root = try Self.folder("path-max")
        // rm walks with openat; FileManager cannot remove what it cannot name.
        defer { _ = try? Shell.run(["rm", "-rf", root]) }
        try Self.makeTextrelLibrary(in: root, named: "libshallow.so")
        let made = try Self.bash(
            """
            set -e
            cd "$1"; mkdir deep; cd deep
            for i in $(seq 1 400); do mkdir folder0$i; cd folder0$i; done
            cp "$1/libshallow.so" libdeep.so
            """, root)
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.removeItem(atPath: root + "/libshallow.so")

        let check = try Self.bash(#""$0" check --no-config "$1/deep""#, root)
        #expect(check.status == 3, "an input error, not a pass: \(check.stdout)")
        let line = try #require(check.stderr.split(separator: "\n").first.map(String.init))
        #expect(line.hasPrefix("Error: \(root)/deep/folder01/folder02/"), "names the path")
        let why = try #require(line.range(of: ": file name too long: the path has ")?.upperBound, "\(line.suffix(120))")
        #expect(line.hasSuffix(" bytes, PATH_MAX allows 4095; not read"), "\(line.suffix(120))")
        #expect((Int(line[why...].prefix { $0.isNumber }) ?? 0) > 4095)

        let audit = try Self.bash(#""$0" audit --no-closure --format json "$1/deep""#, root)
        #expect(audit.status == 3)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(audit.stdout.utf8)) as? [String: Any])
        let errors = report["errors"] as? [[String: Any]] ?? []
        #expect(errors.count == 1)
        #expect(errors.first?["reason"] as? String == "unreadable")
    }

    // 6. A closed stdout killed premain by SIGPIPE (exit 141, no message).
    @Test func closedStdoutIsOneErrorLineNotSIGPIPE() throws {
        let root = try Self.folder("closed-stdout")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let zlib = URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/libz.so.1").resolvingSymlinksInPath().path
        try FileManager.default.copyItem(atPath: zlib, toPath: root + "/libz.so.1")
        let commands = [
            ["audit", "--format", "json"], ["audit", "--format", "text"], ["audit", "--format", "html"],
            ["check", "--no-config"],
        ]
        for command in commands {
            // stdout is a FIFO whose only reader is closed before premain starts: every write
            // fails, whatever the report's size (`| head -c 10` once the pipe is full). SIGPIPE
            // at its default, as a shell gives it, whatever this test runner does with it.
            let result = try Self.bash(
                """
                mkfifo "$1/pipe"; exec 4<>"$1/pipe"; exec 5>"$1/pipe"; exec 4<&-; rm "$1/pipe"
                env --default-signal=PIPE "$0" \(command.joined(separator: " ")) "$1/libz.so.1" >&5 2>"$1/stderr"
                echo $?
                """, root)
            let stderr = try String(contentsOfFile: root + "/stderr", encoding: .utf8)
            #expect(result.stdout == "70\n", "\(command): exit \(result.stdout)")
            #expect(stderr == "Error: cannot write to standard output: broken pipe\n", "\(command)")
        }
    }

    // 12. `--run ../../app` ran a program outside the artifact folder; an absolute --run read
    // "no such executable file".
    @Test func runOutsideTheArtifactFolderIsRefused() throws {
        let root = try Self.folder("run-outside")
        defer { try? FileManager.default.removeItem(atPath: root) }
        for side in ["base", "head"] {
            try FileManager.default.createDirectory(
                atPath: root + "/builds/\(side)/bin", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: "/bin/true", toPath: root + "/builds/\(side)/bin/app")
        }
        // Outside both folders: a program that leaves a mark when it runs.
        try "#!/bin/sh\ntouch \"$(dirname \"$0\")/ran\"\n".write(
            toFile: root + "/app", atomically: true, encoding: .utf8)
        #expect(chmod(root + "/app", 0o755) == 0)
        let base = root + "/builds/base"
        let head = root + "/builds/head"
        let refused = [
            ("../../app", "--run '../../app' leaves the artifact folder; give a path inside it"),
            ("bin/../../../app", "--run 'bin/../../../app' leaves the artifact folder; give a path inside it"),
            (root + "/app", "--run '\(root)/app' is an absolute path; give a path relative to the artifact folder"),
        ]
        for (run, message) in refused {
            for command in [["pr", "--no-config", "--base", base, "--head", head], ["compare", base, head]] {
                let result = try CLI.run(command + ["--run", run, "--min-runs", "2", "--max-runs", "2"])
                #expect(result.status == 64, "\(command[0]) --run \(run): \(result.status) \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").first.map(String.init) == "Error: " + message)
            }
        }
        #expect(!FileManager.default.fileExists(atPath: root + "/ran"), "nothing outside the folders ran")
        // Inside, with a '..' that stays inside: measured.
        let inside = try CLI.run([
            "compare", base, head, "--run", "bin/../bin/app", "--min-runs", "2", "--max-runs", "2",
        ])
        #expect([0, 5].contains(inside.status), "\(inside.stderr)")
    }

    // 12. `audit --output X X` overwrote the binary it audited with the report.
    @Test func outputThatIsAnInputIsRefused() throws {
        let root = try Self.folder("output-input")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let binary = root + "/app"
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: binary)
        try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: "app")
        try FileManager.default.createDirectory(atPath: root + "/folder", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: root + "/folder/tool")
        let original = try Data(contentsOf: URL(fileURLWithPath: "/bin/true"))
        let cases: [([String], String)] = [
            (["audit", "--no-closure", "--output", binary, binary], "--output '\(binary)' is also an input"),
            (
                ["audit", "--no-closure", "-o", root + "/alias", binary],
                "--output '\(root)/alias' is also an input (\(binary))"
            ),
            (
                ["audit", "--no-closure", "--output", root + "/folder/tool", root + "/folder"],
                "--output '\(root)/folder/tool' is also an input"
            ),
            (["check", "--no-config", "--output", binary, binary], "--output '\(binary)' is also an input"),
            (["diff", "--no-config", "--output", binary, binary, binary], "--output '\(binary)' is also an input"),
        ]
        for (arguments, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("Error: \(message); the output would overwrite it, write it elsewhere\n"),
                "\(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: binary)) == original, "the binary is intact")
        #expect(try Data(contentsOf: URL(fileURLWithPath: root + "/folder/tool")) == original)
        // Another file is written as before.
        let report = try CLI.run(["audit", "--no-closure", "--output", root + "/report.txt", binary])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(FileManager.default.fileExists(atPath: root + "/report.txt"))
    }
}
