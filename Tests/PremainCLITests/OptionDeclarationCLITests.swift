import Foundation
import PremainTestSupport
import Testing

/// Options are declared once: help shows each declaration's default and range, the shared
/// launch settings read the same in every command, and no option name is written in the
/// CLI's sources outside its declaration.
@Suite struct OptionDeclarationCLITests {
    /// The row of `premain COMMAND --help` for `option`: its label line and what follows until
    /// the next option, as one line with single spaces.
    static func row(_ option: String, of command: String) throws -> String {
        let lines = try CLI.run([command, "--help"]).stdout.split(separator: "\n", omittingEmptySubsequences: false)
        guard
            let start = lines.firstIndex(where: {
                $0.hasPrefix("  ") && $0.contains(option + " ") && !$0.hasPrefix("   ")
            })
        else {
            return ""
        }
        let rest = lines[(start + 1)...].prefix { $0.hasPrefix("                          ") }
        return ([lines[start]] + rest).joined(separator: " ").split(separator: " ").joined(separator: " ")
    }

    @Test func launchSettingsAreOneDeclarationInMeasureCompareAndTrace() throws {
        for option in ["--warmup", "--timeout", "--allow-idle"] {
            let measure = try Self.row(option, of: "measure")
            #expect(!measure.isEmpty, "\(option)")
            #expect(try Self.row(option, of: "compare") == measure, "\(option)")
            #expect(try Self.row(option, of: "trace") == measure, "\(option)")
        }
        for option in ["--no-pin", "--no-realtime"] {
            #expect(try Self.row(option, of: "compare") == Self.row(option, of: "measure"), "\(option)")
        }
    }

    @Test func helpShowsDefaultsAndRanges() throws {
        #expect(try Self.row("--runs", of: "measure").contains("(default: 10; 1 to 100000)"))
        #expect(try Self.row("--seed", of: "compare").contains("(default: 24301; 0 or more)"))
        #expect(try Self.row("--format", of: "audit").contains("text (default), json or html"))
        let warmup = try CLI.run(["trace", "--warmup", "10001", "--", "/bin/true"])
        #expect(warmup.status == 64)
        #expect(
            warmup.stderr.hasPrefix("Error: --warmup takes a whole number from 0 to 10000, not '10001'"),
            "\(warmup.stderr)")
    }

    /// Every `--name` in Sources/premain is in an option's declaration, or is another program's
    /// (git's in the commit builds, bencher's in an export's help); help texts and messages interpolate the declaration.
    @Test func noOptionNameOutsideItsDeclaration() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/premain")
        let others: Set<String> = ["--show-toplevel", "--verify", "--quiet", "--detach", "--force", "--adapter"]
        var strays: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        #expect(!files.isEmpty)
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.drop { $0 == " " }
                if code.hasPrefix("//") { continue }
                // A declaration: `Option…("--name", …)`, or its first line `"--name", …` after `Option…(`.
                if code.hasPrefix("\"--") || line.contains("Option") && line.contains("(\"--") { continue }
                if line.contains("static let formatName = \"--format\"") { continue }
                for name in Self.optionNames(in: String(line)) where !others.contains(name) {
                    strays.append("\(file):\(number + 1): \(name)")
                }
            }
        }
        #expect(strays.isEmpty, "\(strays.joined(separator: "\n"))")
    }

    /// `--name` words: two dashes after a character that is no letter, digit or dash, then a
    /// lowercase letter; a trailing `// comment` is left out.
    static func optionNames(in line: String) -> [String] {
        let code = line.range(of: " // ").map { String(line[..<$0.lowerBound]) } ?? line
        let characters = Array(code)
        var names: [String] = []
        var index = 0
        while index + 2 < characters.count {
            let before = index == 0 ? " " : characters[index - 1]
            if characters[index] == "-", characters[index + 1] == "-", characters[index + 2].isLowercase,
                !(before.isLetter || before.isNumber || before == "-")
            {
                var end = index + 2
                while end < characters.count, characters[end].isLowercase || characters[end] == "-" { end += 1 }
                names.append(String(characters[index..<end]))
                index = end
            } else {
                index += 1
            }
        }
        return names
    }
}
