import Foundation
import PremainTestSupport
import Testing

/// The libraries premain loads on first use (libdw for source lines, libsqlite3 for the
/// history), made unusable by an empty file or another library of that name first on
/// `LD_LIBRARY_PATH` (`UnusableLibraries`): what each command says, and that it goes on.
@Suite(.serialized) struct LazyLibrariesCLITests {
    static let sample = Result { try Samples.path("swift-startup/swift-startup-O") }

    static let warning = "Warning: source lines (file:line) are unavailable: libdw.so.1 cannot be used ("

    /// Issue 34, defect 12: with libdw.so.1 empty, `audit` dropped every file:line and exited 0
    /// with nothing said; `trace` blamed the file ("no DWARF for this object"); a wrong libdw
    /// (any other library) ended audit with exit 70 at its first libdw call. Now libdw is
    /// checked for every function premain calls when it is loaded, and its loss is said once on
    /// stderr and in the report (audit's `warnings`, trace's notes), naming why, never as a
    /// property of the file.
    @Test func unusableLibdwIsSaidOnceAndNotBlamedOnTheFile() throws {
        let sample = try Self.sample.get()
        let usable = try CLI.run(["audit", sample])
        #expect(usable.status == 0 && usable.stdout.contains("main.swift:"), "\(usable.stderr)")
        #expect(!usable.stderr.contains("Warning:"), "\(usable.stderr)")
        for (kind, folder) in try UnusableLibraries.folders(for: "libdw.so.1") {
            let environment = ["LD_LIBRARY_PATH": folder]
            let reason =
                kind == "empty"
                ? "\(folder)/libdw.so.1: file too short" : "\(folder)/libdw.so.1: undefined symbol: dwarf_"
            let text = try CLI.run(["audit", sample], environment: environment)
            #expect(text.status == 0, "\(kind): \(text.status) \(text.stderr)")
            #expect(!text.stdout.contains("main.swift:"), "\(kind): \(text.stdout)")
            #expect(text.stderr.components(separatedBy: Self.warning).count == 2, "\(kind): \(text.stderr)")
            #expect(text.stderr.contains(reason), "\(kind): \(text.stderr)")
            let json = try CLI.run(["audit", "--format", "json", sample, "/bin/true"], environment: environment)
            #expect(json.status == 0, "\(kind): \(json.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            let warnings = try #require(report["warnings"] as? [String], "\(kind): \(report.keys.sorted())")
            #expect(warnings.count == 1 && warnings[0].contains(reason), "\(kind): \(warnings)")
            // The files are not at fault: nothing about them says so.
            #expect(!json.stdout.contains("no DWARF") && !json.stdout.contains("no debug"), "\(kind)")
            #expect(json.stderr.components(separatedBy: "Warning:").count == 2, "\(kind): \(json.stderr)")

            // check's findings would have had lines too: said once, as by every command.
            let check = try CLI.run(["check", "--no-config", sample], environment: environment)
            #expect(check.stderr.components(separatedBy: Self.warning).count == 2, "\(kind): \(check.stderr)")

            let trace = try CLI.run(
                ["trace", "--runs", "1", "--warmup", "0", "--format", "json", "--", sample], environment: environment)
            #expect(trace.status == 0, "\(kind): \(trace.stderr)")
            #expect(trace.stderr.components(separatedBy: Self.warning).count == 2, "\(kind): \(trace.stderr)")
            let traced = try #require(
                try JSONSerialization.jsonObject(with: Data(trace.stdout.utf8)) as? [String: Any])
            let measurement = try #require((traced["measurements"] as? [[String: Any]])?.first)
            let notes = try #require(measurement["notes"] as? [String])
            #expect(
                notes.filter { $0.contains("libdw.so.1 cannot be used (") && $0.contains(reason) }.count == 1,
                "\(notes)")
            let untimed = try #require(measurement["untimed"] as? [[String: Any]])
            let own = untimed.filter { ($0["object"] as? String)?.hasSuffix("swift-startup-O") == true }
            #expect(!own.isEmpty, "\(untimed)")
            for entry in own {
                let said = entry["reason"] as? String ?? ""
                #expect(
                    !said.contains("no DWARF for this object") && said.contains("libdw.so.1 cannot be used"), "\(said)")
            }
        }
    }

    /// Issue 34, defect 13: with libsqlite3.so.0 empty, `pr --history-db` exited 70 and wrote no
    /// comment and no JSON (the docs say history never fails a pull request), and `history
    /// add/show` exited 70 through the internal-error path. Now a library that cannot be used
    /// is an environment error (exit 69, one line naming it), and `pr` writes its comment and
    /// JSON without the trend, with a note saying why.
    @Test func unusableLibsqliteIsAnEnvironmentErrorAndPrGoesOn() throws {
        let folder = try TemporaryFolders.make("lazy-sqlite")
        let report = folder + "/report.json"
        try HistoryData.measureReport(mainMs: 12).write(toFile: report, atomically: true, encoding: .utf8)
        let database = folder + "/history.sqlite"
        let added = try CLI.run(["history", "add", report, "--db", database])
        #expect(added.status == 0, "\(added.stderr)")
        let build = folder + "/build"
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try Samples.path("c-hello/c-hello"), toPath: build + "/c-hello")
        let pr = ["pr", "--no-config", "--base", build, "--head", build, "--history-db", database]
        let usable = try CLI.run(pr + ["--markdown", folder + "/usable.md"])
        for (kind, libraries) in try UnusableLibraries.folders(for: "libsqlite3.so.0") {
            let environment = ["LD_LIBRARY_PATH": libraries]
            let before = try Data(contentsOf: URL(fileURLWithPath: database))
            for arguments in [["history", "add", report, "--db", database], ["history", "show", "--db", database]] {
                let result = try CLI.run(arguments, environment: environment)
                #expect(result.status == 69, "\(kind) \(arguments[1]): \(result.status) \(result.stderr)")
                #expect(
                    result.stderr.hasPrefix("Error: libsqlite3.so.0 cannot be used (\(libraries)/libsqlite3.so.0: ")
                        && result.stderr.split(separator: "\n").count == 1,
                    "\(kind) \(arguments[1]): \(result.stderr)")
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before, "\(kind)")
            let markdown = folder + "/\(kind).md"
            let json = folder + "/\(kind).json"
            let result = try CLI.run(pr + ["--markdown", markdown, "--json", json], environment: environment)
            #expect(result.status == usable.status, "\(kind): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("libsqlite3.so.0 cannot be used"), "\(kind): \(result.stderr)")
            let comment = try String(contentsOfFile: markdown, encoding: .utf8)
            #expect(comment.contains("No trend on the base branch: libsqlite3.so.0 cannot be used"), "\(comment)")
            #expect(!comment.contains("Trend on the base branch"), "\(comment)")
            #expect(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) is [String: Any])
        }
    }
}
