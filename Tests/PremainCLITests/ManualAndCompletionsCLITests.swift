import Foundation
import PremainTestSupport
import Testing

/// The man page and the shell completions are made from the command declarations: the
/// committed docs/man/premain.1 is what `premain manual` prints, it lints clean, and it and
/// every completion script name every option `--help` lists; bash and fish complete
/// subcommands, `--format` values and files when driven as a shell would.
@Suite struct ManualAndCompletionsCLITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every subcommand `premain --help` lists, with the option names its `--help` lists.
    static func declaredOptions() throws -> [(command: String, options: [String])] {
        let overview = try CLI.run(["--help"]).stdout
        let section =
            overview.components(separatedBy: "SUBCOMMANDS:\n").last?.components(separatedBy: "\nOPTIONS:").first ?? ""
        let commands = section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
            return line.split(separator: " ").first.map(String.init)
        }
        return try commands.map { command in
            let help = try CLI.run([command, "--help"]).stdout
            let rows = help.components(separatedBy: "\nOPTIONS:\n").last ?? ""
            // The label of each row (`-r, --runs <n>`): up to the gap before its help.
            let options = rows.split(separator: "\n").filter { $0.hasPrefix("  -") }.flatMap { row in
                (row.dropFirst(2).components(separatedBy: "  ").first ?? "").split(separator: " ")
                    .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }.filter { $0.hasPrefix("-") }
            }
            return (command, options)
        }
    }

    @Test func committedManualIsTheGeneratedOne() throws {
        let generated = try CLI.run(["manual"])
        #expect(generated.status == 0)
        let committed = try String(
            contentsOf: Self.repository.appendingPathComponent("docs/man/premain.1"), encoding: .utf8)
        #expect(
            generated.stdout == committed,
            "docs/man/premain.1 is stale: run '.build/debug/premain manual > docs/man/premain.1'")
    }

    @Test func manualLintsCleanAndRendersEveryCommandAndOption() throws {
        let page = Self.repository.appendingPathComponent("docs/man/premain.1").path
        let lint = try Shell.run(["mandoc", "-T", "lint", "-W", "warning", page])
        #expect(lint.status == 0 && lint.stdout.isEmpty, "\(lint.stdout)\(lint.stderr)")
        let rendered = try Shell.run(["man", "-l", page], environment: ["MANWIDTH": "200", "MAN_KEEP_FORMATTING": ""])
        #expect(rendered.status == 0, "\(rendered.stderr)")
        // Overstruck bold and underline (`b\bb`) removed: the text as a reader sees it.
        let text = rendered.stdout.replacingOccurrences(of: ".\u{8}", with: "", options: .regularExpression)
        let declared = try Self.declaredOptions()
        #expect(declared.count >= 10)
        for (command, options) in declared {
            #expect(text.contains("premain \(command)\n"), "no section for \(command)")
            #expect(text.contains("premain \(command) "), "no synopsis for \(command)")
            for option in options {
                #expect(text.contains(option), "\(command) \(option) is not in the manual")
            }
        }
        for heading in ["EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"] { #expect(text.contains(heading)) }
    }

    /// The manual's examples are command lines the parser takes (`--help` after the
    /// subcommand: every option is still checked, nothing runs).
    @Test func manualExamplesParse() throws {
        let page = try String(contentsOf: Self.repository.appendingPathComponent("docs/man/premain.1"), encoding: .utf8)
        let examples = page.split(separator: "\n").filter { $0.hasPrefix(".Dl premain ") }
        #expect(examples.count >= 3)
        for example in examples {
            var words = example.dropFirst(".Dl premain ".count).split(separator: " ").map {
                $0.replacingOccurrences(of: "\\-", with: "-")
            }
            words.insert("--help", at: 1)
            let result = try CLI.run(words)
            #expect(result.status == 0, "\(example): \(result.stderr)")
        }
    }

    @Test func everyDeclaredOptionIsInEveryCompletionScript() throws {
        let declared = try Self.declaredOptions()
        for shell in ["bash", "zsh", "fish"] {
            let script = try CLI.run(["completions", shell])
            #expect(script.status == 0)
            for (command, options) in declared {
                #expect(script.stdout.contains(command), "\(shell): \(command)")
                for option in options {
                    // fish writes `-l runs` and `-s r`; bash and zsh the option itself.
                    let spelled =
                        shell == "fish"
                        ? (option.hasPrefix("--") ? "-l \(option.dropFirst(2))" : "-s \(option.dropFirst())") : option
                    #expect(script.stdout.contains(spelled), "\(shell) completion lacks \(command) \(option)")
                }
            }
        }
        let unknown = try CLI.run(["completions", "tcsh"])
        #expect(unknown.status == 64)
        #expect(
            unknown.stderr.hasPrefix("Error: <shell> must be bash, zsh or fish, not 'tcsh'"), "\(unknown.stderr)")
    }

    /// Sources the bash script and calls its function as bash's completion would.
    @Test func bashCompletesSubcommandsFormatsAndFiles() throws {
        let folder = try TemporaryFolders.make("premain-completion")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = folder + "/premain.bash"
        try CLI.run(["completions", "bash"]).stdout.write(toFile: script, atomically: true, encoding: .utf8)
        FileManager.default.createFile(atPath: folder + "/report-one.json", contents: Data())
        let driver = """
            source "\(script)"
            t() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _premain; echo "${COMPREPLY[*]}"; }
            t premain ""
            t premain me
            t premain audit --format ""
            t premain compare --format = ma
            t premain history ""
            t premain check --fail-on ""
            t premain audit "\(folder)/report-"
            t premain help tr
            t premain measure --runs ""
            """
        let result = try Shell.run(["bash", "--norc", "-c", driver])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count >= 9)
        guard lines.count >= 9 else { return }
        for command in [
            "audit", "measure", "trace", "check", "compare", "diff", "pr", "history", "rules", "completions", "help",
            "--version",
        ] {
            #expect(lines[0].split(separator: " ").contains(Substring(command)), "\(command) not in '\(lines[0])'")
        }
        #expect(lines[1] == "measure")
        #expect(lines[2] == "text json html")
        #expect(lines[3] == "markdown")
        #expect(lines[4] == "add show")
        #expect(lines[5].contains("error") && lines[5].contains("warning"), "\(lines[5])")
        #expect(lines[6] == folder + "/report-one.json")
        #expect(lines[7] == "trace")
        #expect(lines[8] == "", "a number has no completion: '\(lines[8])'")
    }

    /// Issue 34, defect 17: `COMPREPLY=($(compgen -f …))` split `my report.json` into `my` and
    /// `report.json`; each name is one completion, as zsh and fish have it.
    @Test func bashCompletionKeepsFileNamesWithSpaces() throws {
        let folder = try TemporaryFolders.make("premain-completion-spaces")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = folder + "/premain.bash"
        try CLI.run(["completions", "bash"]).stdout.write(toFile: script, atomically: true, encoding: .utf8)
        let reports = folder + "/reports"
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: reports + "/my report.json", contents: Data())
        let driver = """
            source "\(script)"
            cd "\(reports)"
            t() { COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _premain; printf '%s\\n' "${#COMPREPLY[@]}" "${COMPREPLY[@]}"; }
            t premain check my
            t premain audit --output my
            t premain measure -- ./app my
            """
        let result = try Shell.run(["bash", "--norc", "-c", driver])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == String(repeating: "1\nmy report.json\n", count: 3), "\(result.stdout)")
    }

    @Test func fishAndZshTakeTheirScripts() throws {
        for (shell, check) in [("zsh", ["zsh", "-n"]), ("fish", ["fish", "-n"])] {
            guard (try? Shell.run(["sh", "-c", "command -v \(shell)"]))?.status == 0 else {
                Issue.record("\(shell) is not installed (scripts/setup installs it)")
                continue
            }
            let folder = try TemporaryFolders.make("premain-completion")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let script = folder + "/premain.\(shell)"
            try CLI.run(["completions", shell]).stdout.write(toFile: script, atomically: true, encoding: .utf8)
            let syntax = try Shell.run(check + [script])
            #expect(syntax.status == 0, "\(shell): \(syntax.stderr)")
            if shell == "fish" {
                let driven = try Shell.run([
                    "fish", "--no-config", "-c", "source \(script); complete -C 'premain diff --format '",
                ])
                let words = driven.stdout.split(separator: "\n").map {
                    $0.split(separator: "\t").first.map(String.init) ?? ""
                }
                #expect(
                    words.sorted() == ["github", "gitlab-codequality", "html", "json", "markdown", "sarif", "text"],
                    "\(driven.stdout)")
            }
        }
    }
}

/// Conventions every command keeps: `--quiet` leaves stdout as it is and stderr to errors;
/// the environment variables premain reads are declared in one place, which the manual and
/// docs/environment.md list.
@Suite struct ConventionsCLITests {
    @Test func quietLeavesTheReportAndDropsNotes() throws {
        let folder = try TemporaryFolders.make("premain-quiet")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: folder + "/true")
        // A relocatable object in a folder is left out with a note.
        try "int premain_quiet;\n".write(toFile: folder + "/object.c", atomically: true, encoding: .utf8)
        let compiled = try Shell.run(["gcc", "-c", folder + "/object.c", "-o", folder + "/object.o"])
        #expect(compiled.status == 0, "\(compiled.stderr)")
        try FileManager.default.removeItem(atPath: folder + "/object.c")
        let loud = try CLI.run(["audit", "--no-closure", folder])
        #expect(loud.status == 0)
        #expect(loud.stderr.contains("Note: "), "\(loud.stderr)")
        for spelling in ["--quiet", "-q"] {
            let quiet = try CLI.run(["audit", spelling, "--no-closure", folder])
            #expect(quiet.status == 0)
            #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
            #expect(quiet.stdout == loud.stdout)
        }
        // Errors stay.
        let missing = try CLI.run(["audit", "-q", folder + "/absent"])
        #expect(missing.status == 3)
        #expect(missing.stderr.hasPrefix("Error: "), "\(missing.stderr)")
        // Every command takes it.
        for command in [
            "measure", "trace", "check", "compare", "diff", "pr", "history", "rules", "completions", "manual",
        ] {
            #expect(try CLI.run([command, "--help"]).stdout.contains("-q, --quiet"), "\(command)")
        }
    }

    @Test func environmentVariablesAreDeclaredOnceAndDocumented() throws {
        let repository = ManualAndCompletionsCLITests.repository
        let sources = repository.appendingPathComponent("Sources")
        var strays: [String] = []
        for file in FileManager.default.enumerator(atPath: sources.path)?.compactMap({ $0 as? String }) ?? []
        where file.hasSuffix(".swift") && !file.hasSuffix("/EnvironmentVariable.swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            if text.contains("getenv(") { strays.append(file) }
        }
        #expect(strays.isEmpty, "getenv outside PremainSystem/EnvironmentVariable.swift: \(strays)")

        let page = try String(contentsOf: repository.appendingPathComponent("docs/man/premain.1"), encoding: .utf8)
        let section =
            page.components(separatedBy: ".Sh ENVIRONMENT\n").last?.components(separatedBy: ".Sh ").first ?? ""
        let declared = section.split(separator: "\n").filter { $0.hasPrefix(".It Ev ") }.map { String($0.dropFirst(7)) }
        #expect(declared.count >= 4)
        let doc = try String(contentsOf: repository.appendingPathComponent("docs/environment.md"), encoding: .utf8)
        let table =
            doc.components(separatedBy: "## Environment variables premain reads").last?.components(separatedBy: "\n## ")
            .first ?? ""
        let documented = table.split(separator: "\n").compactMap { row -> String? in
            guard row.hasPrefix("| `") else { return nil }
            return row.dropFirst(3).split(separator: "`").first.map(String.init)
        }
        #expect(documented == declared, "docs/environment.md lists \(documented), the declarations \(declared)")
    }
}
