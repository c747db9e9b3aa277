import Foundation
import PremainTestSupport
import Testing

/// Issue 36, items 9–11: a mistyped name is answered with the nearest declared one, `-` names
/// stdout for one output at most (the report then goes to stderr), and usage lines fit the width.
@Suite struct CLIMannersTests {
    @Test func mistypedSubcommandAndOptionSuggestTheNearest() throws {
        let subcommand = try CLI.run(["adit", "/bin/true"])
        #expect(subcommand.status == 64)
        #expect(subcommand.stderr.hasPrefix("Error: unknown subcommand 'adit'; did you mean 'audit'?\nUsage: premain"))
        let help = try CLI.run(["help", "mesure"])
        #expect(help.stderr.hasPrefix("Error: unknown subcommand 'mesure'; did you mean 'measure'?\n"))
        let option = try CLI.run(["audit", "--formt", "json", "/bin/true"])
        #expect(option.status == 64)
        #expect(
            option.stderr.hasPrefix("Error: unknown option '--formt'; did you mean '--format'?\nUsage: premain audit"))
        #expect(option.stderr.contains("  See 'premain audit --help' for more information.\n"))
        let choice = try CLI.run(["audit", "--format", "jsno", "/bin/true"])
        #expect(choice.stderr.contains("not 'jsno'; did you mean 'json'?"), "\(choice.stderr)")
        // Nothing near: no suggestion.
        let far = try CLI.run(["zzzzzz"])
        #expect(far.status == 64)
        #expect(far.stderr.hasPrefix("Error: unknown subcommand 'zzzzzz'\n"))
    }

    @Test func usageLinesWrapAtTheWidth() throws {
        for columns in ["80", "60"] {
            let result = try CLI.run(["compare", "--bogus"], environment: ["COLUMNS": columns])
            #expect(result.status == 64)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count > 3)
            #expect(lines.allSatisfy { $0.count <= Int(columns) ?? 0 }, "\(result.stderr)")
            #expect(lines[1].hasPrefix("Usage: premain compare "))
        }
    }

    @Test func oneOutputMayBeStdoutAndTheReportMovesToStderr() throws {
        let two = try CLI.run([
            "measure", "--runs", "1", "--format", "json", "--output", "-", "--export-bmf", "-", "--", "/bin/true",
        ])
        #expect(two.status == 64)
        #expect(two.stderr.hasPrefix("Error: --output and --export-bmf both write to stdout ('-')"), "\(two.stderr)")
        #expect(two.stdout.isEmpty)
        let one = try CLI.run(
            [
                "measure", "--runs", "1", "--warmup", "0", "--format", "json", "--export-bmf", "-", "--", "/bin/true",
            ], executable: CLI.binary)  // stdout is the BMF export, not the measure report the schema check expects
        #expect(one.status == 0, "\(one.stderr)")
        let bmf = try JSONSerialization.jsonObject(with: Data(one.stdout.utf8)) as? [String: Any]
        #expect(bmf?["true"] != nil, "\(one.stdout)")
        #expect(one.stderr.contains("\"kind\" : \"measure\""))
    }

    @Test func historyAddReadsTheReportFromStdin() throws {
        let folder = try TemporaryFolders.make("history-stdin")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = folder + "/audit.json"
        #expect(try CLI.run(["audit", "--format", "json", "--output", report, "/bin/true"]).status == 0)
        let database = folder + "/history.db"
        let added = try Shell.run(
            ["-c", "\"$0\" history add - --db \"$1\" --commit abc123 <\"$2\"", CLI.binary, database, report],
            executable: "/bin/sh")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stderr.contains("history: added audit report"))
        let empty = try Shell.run(
            ["-c", "\"$0\" history add - --db \"$1\" </dev/null", CLI.binary, database], executable: "/bin/sh")
        #expect(empty.status == 3)
        #expect(empty.stderr.hasPrefix("Error: stdin: "), "\(empty.stderr)")
        #expect(try CLI.run(["measure", "--help"]).stdout.contains("'-': stdout, and the report goes to stderr"))
    }
}

/// Issue 36, item 12: on a terminal, a folder audit shows progress from its first step (the walk)
/// to the last file; not on a pipe or a file.
@Suite struct ProgressCLITests {
    @Test func folderAuditShowsEveryStepOnATerminal() throws {
        let folder = try TemporaryFolders.make("progress")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["a", "b"] {
            try FileManager.default.copyItem(atPath: "/bin/true", toPath: folder + "/" + name)
        }
        try "not ELF".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        let report = folder + "/report.json"
        // `script` gives premain a pseudo-terminal for stdin, stdout and stderr.
        let shown = try Shell.run(
            ["-q", "-c", "'\(CLI.binary)' audit '\(folder)' --format json --output '\(report)'", "/dev/null"],
            executable: "/usr/bin/script")
        #expect(shown.status == 0, "\(shown.stdout)")
        let steps = shown.stdout.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).map(String.init)
        let walking = steps.firstIndex { $0.contains("auditing: walking folders") }
        let reading = steps.firstIndex { $0.contains("auditing: reading file headers [") }
        let auditing = steps.firstIndex { $0.contains("auditing [") && $0.contains("/2") }
        #expect(walking != nil && reading != nil && auditing != nil, "\(steps)")
        if let walking, let reading, let auditing { #expect(walking < reading && reading < auditing) }
        // Not a terminal: no progress.
        let piped = try CLI.run(["audit", folder, "--format", "json", "--output", report])
        #expect(piped.status == 0 && !piped.stderr.contains("auditing"), "\(piped.stderr)")
        // check and diff read their folders with the same steps.
        for (command, label) in [("check '\(folder)'", "reading"), ("diff '\(folder)' '\(folder)'", "reading head")] {
            let read = try Shell.run(
                ["-q", "-c", "'\(CLI.binary)' \(command) --format json --output '\(report)'", "/dev/null"],
                executable: "/usr/bin/script")
            #expect(read.stdout.contains("\(label): walking folders"), "\(command): \(read.stdout)")
            #expect(read.stdout.contains("\(label) ["), "\(command): \(read.stdout)")
        }
    }
}
