import Foundation
import PremainTestSupport
import Testing

/// `premain history` as CI runs it: 30 recorded reports with and without a step, two jobs
/// adding at once, a damaged database, usage errors. Data generated from fixed seeds.
@Suite(.serialized)
struct HistoryCLITests {
    static func folder() throws -> String {
        let folder = TemporaryFolders.root + "/premain-history-cli-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Writes report n (1-based) of `values` and adds it with commit c01…c30.
    static func record(_ values: [Double], in folder: String, database: String) throws {
        for (index, value) in values.enumerated() {
            let file = folder + "/report-\(index + 1).json"
            try HistoryData.measureReport(mainMs: value).write(toFile: file, atomically: true, encoding: .utf8)
            let result = try CLI.run(["history", "add", file, "--commit", HistoryData.commit(index + 1), "--db", database],
                                     environment: ["GITHUB_SHA": ""])
            #expect(result.status == 0, "\(result.stderr)")
        }
    }

    @Test func stepAtReport18IsNamedAndNoStepNamesNone() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stepped = folder + "/stepped/history.sqlite"
        try Self.record(HistoryData.series(stepAt: 17), in: folder, database: stepped)
        let text = try CLI.run(["history", "show", "--metric", "main", "--db", stepped])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("step +2.") && text.stdout.contains("at commit c18 (report 18)"), "\(text.stdout)")
        let json = try CLI.run(["history", "show", "--format", "json", "--db", stepped])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["reports"] as? Int == 30)
        let series = try #require(document["series"] as? [[String: Any]])
        let main = try #require(series.first { $0["metric"] as? String == "main" })
        let steps = try #require(main["steps"] as? [[String: Any]])
        #expect(steps.compactMap { $0["commit"] as? String } == ["c18"])

        let flat = folder + "/flat.sqlite"
        try Self.record(HistoryData.series(), in: folder, database: flat)
        let none = try CLI.run(["history", "show", "--metric", "main", "--db", flat])
        #expect(none.status == 0 && none.stdout.contains("no step change") && !none.stdout.contains("← step"))
        let markdown = try CLI.run(["history", "show", "--format", "markdown", "--last", "10", "--db", stepped])
        #expect(markdown.status == 0 && markdown.stdout.contains("| main |") && markdown.stdout.contains("▁"))
        let html = try CLI.run(["history", "show", "--format", "html", "--db", stepped])
        #expect(html.status == 0 && html.stdout.contains("<svg") && HTMLReferenceCheck.externalReferences(in: html.stdout).isEmpty)
    }

    @Test func twoWritersAtOnceLoseNothing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/history.sqlite"
        let report = folder + "/report.json"
        try HistoryData.measureReport(mainMs: 12).write(toFile: report, atomically: true, encoding: .utf8)
        // Two shell loops, each a CI job adding 15 reports, started together.
        let loop = "for i in $(seq 1 15); do \"$0\" history add \"$1\" --db \"$2\" --commit \"$3-$i\" || exit 1; done"
        let writers = try ["a", "b"].map { name -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", loop, CLI.binary, report, database, name]
            process.standardError = FileHandle.nullDevice
            try process.run()
            return process
        }
        for writer in writers {
            writer.waitUntilExit()
            #expect(writer.terminationStatus == 0)
        }
        let shown = try CLI.run(["history", "show", "--format", "json", "--metric", "main", "--db", database])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(document["reports"] as? Int == 30)
        let points = ((document["series"] as? [[String: Any]])?.first?["points"] as? [[String: Any]]) ?? []
        #expect(Set(points.compactMap { $0["commit"] as? String }).count == 30)
    }

    @Test func damagedDatabaseIsOneLineAndLeftAlone() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/history.sqlite"
        let garbage = String(repeating: "not a database ", count: 400)
        try garbage.write(toFile: database, atomically: true, encoding: .utf8)
        let report = folder + "/report.json"
        let reportText = HistoryData.measureReport(mainMs: 12)
        try reportText.write(toFile: report, atomically: true, encoding: .utf8)
        for arguments in [["history", "add", report, "--db", database], ["history", "show", "--db", database]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 3)
            #expect(result.stderr.hasPrefix("Error: \(database): not a usable history database"))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        #expect(try String(contentsOfFile: database, encoding: .utf8) == garbage)
        #expect(try String(contentsOfFile: report, encoding: .utf8) == reportText)
    }

    @Test func badInputAndUsage() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let notReport = folder + "/x.json"
        try "{\"hello\": 1}".write(toFile: notReport, atomically: true, encoding: .utf8)
        let bad = try CLI.run(["history", "add", notReport, "--db", folder + "/h.sqlite"])
        #expect(bad.status == 3 && bad.stderr.hasPrefix("Error: \(notReport): not a premain report"))
        let missing = try CLI.run(["history", "show", "--db", folder + "/none.sqlite"])
        #expect(missing.status == 3 && missing.stderr.contains("no history database"))
        #expect(try CLI.run(["history"]).status == 64)
        #expect(try CLI.run(["history", "frobnicate"]).status == 64)
        #expect(try CLI.run(["history", "add"]).status == 64)
        #expect(try CLI.run(["history", "show", "--last", "1"]).status == 64)
        let help = try CLI.run(["history", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--metric") && help.stdout.contains("--commit"))
        #expect(try CLI.run(["help", "history"]).stdout == help.stdout)
    }
}
