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

    /// Issue 36, item 17: a command's usage line and its argument checks are made from its
    /// declared forms, arguments and options, so each message below comes from the parser.
    @Test func formsAndArgumentsAreCheckedFromTheirDeclarations() throws {
        let cases: [([String], String)] = [
            (["history"], "missing expected argument 'add' or 'show'"),
            (["history", "ad"], "unknown action 'ad'; use 'add' or 'show'; did you mean 'add'?"),
            (["history", "add"], "missing expected argument '<report>'"),
            (["history", "add", "a.json", "b.json"], "unexpected argument 'b.json'"),
            (["history", "show", "--commit", "abc"], "--commit goes with 'premain history add'"),
            (["field", "run"], "missing expected argument '<command>' after '--'"),
            (["field", "report", "--", "/bin/true"], "'--' and what follows are for 'premain field run' only"),
            (["field", "compare"], "missing expected argument '<old>'"),
            (["field", "compare", "a", "b", "c"], "unexpected argument 'c'"),
            (["field", "export", "--notify"], "--notify goes with 'premain field run'"),
            (["completions", "bsh"], "<shell> must be bash, zsh or fish, not 'bsh'; did you mean 'bash'?"),
            (["compare", "/bin/true"], "missing expected argument '<head>'"),
            (
                ["compare", "/bin/true", "/bin/true", "x"],
                "unexpected argument 'x'; put the program's arguments after '--'"
            ),
            (["measure", "x"], "unexpected argument 'x'; put the program's arguments after '--'"),
            (["diff", "a"], "missing expected argument '<head>'"),
            (["rules", "x"], "unexpected argument 'x'"),
            (["audit"], "missing expected argument '<file-or-folder>'"),
            (["check"], "missing expected argument '<input>'"),
            (["manual", "x"], "unexpected argument 'x'"),
        ]
        for (arguments, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.hasPrefix("Error: \(message)\nUsage: premain \(arguments[0])"), "\(result.stderr)")
        }
        // --help is not held to the arguments.
        #expect(try CLI.run(["history", "--help"]).status == 0)
    }

    /// Every option a usage line names is one the command takes (its help lists it), and the
    /// forms' usage wraps within the width between whole terms.
    @Test func usageLinesNameOnlyDeclaredOptions() throws {
        for command in ["audit", "measure", "trace", "check", "compare", "diff", "pr", "history", "field", "rules"] {
            let help = try CLI.run([command, "--help"])
            #expect(help.status == 0)
            guard let usageStart = help.stdout.range(of: "USAGE: "),
                let usageEnd = help.stdout.range(of: "\n\n", range: usageStart.upperBound..<help.stdout.endIndex),
                let optionsStart = help.stdout.range(of: "\nOPTIONS:\n")
            else {
                Issue.record("no USAGE or OPTIONS in \(command) --help")
                continue
            }
            let usage = help.stdout[usageStart.upperBound..<usageEnd.lowerBound]
            let options = help.stdout[optionsStart.upperBound...]
            let named = usage.split(whereSeparator: { " \n[]()|".contains($0) }).filter {
                $0.hasPrefix("--") && $0 != "--"
            }
            #expect(!named.isEmpty || command == "history")
            for name in named {
                #expect(options.contains("\(name) ") || options.contains("\(name)\n"), "\(command): \(name)")
            }
            #expect(help.stdout.split(separator: "\n").allSatisfy { $0.count <= 100 }, "\(command)")
        }
        let field = try CLI.run(["field", "bogus"], environment: ["COLUMNS": "80"])
        let lines = field.stderr.split(separator: "\n")
        #expect(lines.count > 4)
        #expect(lines.dropFirst().allSatisfy { $0.count <= 80 }, "\(field.stderr)")
        #expect(!field.stderr.contains("[--format\n"))
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
