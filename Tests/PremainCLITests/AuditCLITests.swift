import Foundation
import PremainModel
import PremainTestSupport
import Testing

@Suite struct AuditCLITests {
    @Test func helpListsSubcommandsAndExitCodes() throws {
        let result = try CLI.run(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW:"))
        #expect(result.stdout.contains("SUBCOMMANDS:"))
        #expect(result.stdout.contains("audit"))
        #expect(result.stdout.contains("EXIT CODES:"))
        // The list is ExitCode's: every code, in its order, and nothing else.
        let list = result.stdout.components(separatedBy: "EXIT CODES:\n").last ?? ""
        let codes = list.split(separator: "\n").prefix { $0.hasPrefix("  ") }.compactMap {
            Int32($0.split(separator: " ").first ?? "")
        }
        #expect(codes == ExitCode.allCases.map(\.rawValue), "\(list)")
    }

    @Test func helpSubcommandEqualsDashDashHelp() throws {
        let viaHelp = try CLI.run(["help", "audit"])
        let viaFlag = try CLI.run(["audit", "--help"])
        #expect(viaHelp.status == 0)
        #expect(viaHelp.stdout == viaFlag.stdout)
        #expect(viaFlag.stdout.contains("USAGE: premain audit"))
        #expect(viaFlag.stdout.contains("--format"))
        #expect(viaFlag.stdout.split(separator: "\n").allSatisfy { $0.count <= 100 })
    }

    /// The version and the commit of the checkout it was built from (Package.swift reads it).
    @Test func versionNamesTheCommit() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(
            result.stdout.range(
                of: #"^\d+\.\d+\.\d+ \(commit ([0-9a-f]{12}|unknown)\)\n$"#, options: .regularExpression) != nil,
            "\(result.stdout)")
    }

    @Test func usageErrorsExit64WithUsageAndHint() throws {
        for arguments in [
            ["audit"], ["audit", "--format", "yaml", "/usr/bin/ls"], ["audit", "--bogus", "x"],
            ["frobnicate"], ["audit", "--format"],
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.first?.hasPrefix("Error: ") == true, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("See 'premain"), "\(arguments)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func badFilesGetOneLineEachAndExit3WhileGoodFilesAreStillAudited() throws {
        let folder = TemporaryFolders.root + "/premain-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = folder + "/notes.txt"
        try "just text\n".write(toFile: text, atomically: true, encoding: .utf8)
        let truncated = folder + "/truncated.so"
        let libz = try Data(contentsOf: URL(fileURLWithPath: "/usr/lib/x86_64-linux-gnu/libz.so.1"))
        try libz.prefix(3000).write(to: URL(fileURLWithPath: truncated))
        let missing = folder + "/missing"
        let result = try CLI.run(["audit", "--format", "json", text, "/usr/bin/ls", missing, truncated, folder])
        #expect(result.status == 3)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        // The folder is walked (folder mode): its files were named already and are not audited
        // twice, and nothing in it is reported again.
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.contains("Error: \(text): not an ELF file"))
        #expect(lines.contains("Error: \(missing): no such file or directory"))
        #expect(lines.contains { $0.hasPrefix("Error: \(truncated): ") })
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let binaries = json?["binaries"] as? [[String: Any]]
        #expect(binaries?.map { $0["path"] as? String } == ["/usr/bin/ls", truncated])
        #expect((json?["errors"] as? [[String: Any]])?.count == 2)
    }

    @Test func textOutputFitsOneHundredColumns() throws {
        let result = try CLI.run(["audit", "/opt/swift/usr/bin/swift-frontend", "/usr/lib/x86_64-linux-gnu/libc.so.6"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Relocations the loader applies"))
        #expect(result.stdout.contains("Static initializers"))
        let wide = result.stdout.split(separator: "\n").filter { $0.count > 100 }
        #expect(wide.isEmpty, "\(wide.prefix(3))")
    }

    @Test func outputOptionWritesTheReportToAFile() throws {
        let path = TemporaryFolders.root + "/premain-out-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CLI.run(["audit", "-f", "json", "-o", path, "/usr/bin/ls"])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        let written = try String(contentsOfFile: path, encoding: .utf8)
        #expect(written.contains("\"schemaVersion\" : 1"))
    }
}
