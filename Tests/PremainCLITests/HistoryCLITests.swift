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
            let result = try CLI.run(
                ["history", "add", file, "--commit", HistoryData.commit(index + 1), "--db", database],
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
        #expect(
            html.status == 0 && html.stdout.contains("<svg")
                && HTMLReferenceCheck.externalReferences(in: html.stdout).isEmpty)
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

    // MARK: issue 23: nothing lost, nothing changed, nothing left behind

    /// Writes a measure report to `folder/report.json` and returns its path.
    static func report(in folder: String, mainMs: Double = 12) throws -> String {
        let report = folder + "/report.json"
        try HistoryData.measureReport(mainMs: mainMs).write(toFile: report, atomically: true, encoding: .utf8)
        return report
    }

    /// premain with `arguments`, ended with SIGKILL after 60 s: a hang fails the test (exit 124)
    /// instead of stopping the suite. The limit is a hang guard, never a measure of speed.
    static func guarded(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(["-s", "KILL", "60", CLI.binary] + arguments, executable: "/usr/bin/timeout")
    }

    /// Issue 23, defect 2: the first adds to a database that did not exist yet, at once. One of
    /// them used to fail in ~8 ms with "database is locked" (the switch to WAL did not wait on the
    /// busy timeout) and its report was lost.
    @Test func firstAddsAtOnceToAMissingDatabaseAllLand() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try Self.report(in: folder)
        // Four CI jobs forked together by one shell, so they reach the new file together, ten
        // times. bash: dash's `wait` never returns when the test runner has SIGCHLD blocked.
        let together =
            "for w in 1 2 3 4; do \"$0\" history add \"$1\" --db \"$2\" --commit \"w$w\" 2>>\"$3\" & done; wait"
        for round in 1...10 {
            let database = folder + "/round-\(round)/history.sqlite"
            let errors = folder + "/round-\(round).err"
            let jobs = try Shell.run(["/bin/bash", "-c", together, CLI.binary, report, database, errors])
            #expect(jobs.status == 0)
            let shown = try CLI.run(["history", "show", "--format", "json", "--metric", "main", "--db", database])
            let document = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
            let points = ((document?["series"] as? [[String: Any]])?.first?["points"] as? [[String: Any]]) ?? []
            #expect(
                document?["reports"] as? Int == 4
                    && Set(points.compactMap { $0["commit"] as? String }) == ["w1", "w2", "w3", "w4"],
                "round \(round): \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")\(shown.stderr)")
        }
    }

    /// Issue 23, defect 3: another program's SQLite database was refused only after it had been
    /// switched to WAL for good (header bytes 18 and 19 became 2). It is now identified first,
    /// read-only, and left byte for byte, with no -wal, -shm or -journal beside it.
    @Test func foreignDatabaseIsRefusedAndLeftByteForByte() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try Self.report(in: folder)
        let cases: [(name: String, sql: String, says: String)] = [
            ("photos.db", "CREATE TABLE photos (id INTEGER, name TEXT); INSERT INTO photos VALUES (1, 'a')", "photos"),
            (
                "wal.db", "PRAGMA journal_mode=WAL; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x')",
                "notes"
            ),
            ("versioned.db", "CREATE TABLE settings (key TEXT); PRAGMA user_version = 1", "settings"),
            ("future.db", "CREATE TABLE cache (key TEXT); PRAGMA user_version = 99", "cache"),
        ]
        for (name, sql, says) in cases {
            let databases = folder + "/" + name.replacingOccurrences(of: ".db", with: "")
            try FileManager.default.createDirectory(atPath: databases, withIntermediateDirectories: true)
            let database = databases + "/" + name
            try SQLiteFiles.run(sql, in: database)
            let before = FolderSnapshot(databases)
            let header = try #require(before.entries[name]?.bytes)
            for arguments in [
                ["history", "show", "--db", database], ["history", "add", report, "--db", database],
                ["history", "show", "--format", "json", "--db", database],
            ] {
                let result = try CLI.run(arguments)
                #expect(result.status == 3, "\(name) \(arguments[1]): \(result.stderr)")
                #expect(
                    result.stderr.hasPrefix("Error: \(database): not a premain history database")
                        && result.stderr.contains(says), "\(name): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(FolderSnapshot(databases) == before, "\(name) \(arguments[1]): \(FolderSnapshot(databases))")
            }
            #expect(Array(header[18...19]) == (name == "wal.db" ? [2, 2] : [1, 1]))
        }
    }

    /// Issue 23, defect 10: a read opened the database read-write, switched it to WAL and migrated
    /// it, so `show` failed where the folder was not writable, wrote a schema into an empty file
    /// and left -wal/-shm; a failed `add` on a file it may not write left them too. A read now
    /// opens read-only and writes nothing; an `add` that cannot write says so and leaves nothing.
    @Test func readingWritesNothingAndAFailedAddLeavesNothing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try Self.report(in: folder)
        let databases = folder + "/db"
        let database = databases + "/history.sqlite"
        for index in 1...3 {
            #expect(try CLI.run(["history", "add", report, "--db", database, "--commit", "c\(index)"]).status == 0)
        }
        // A read, in every format: no byte, no time, no side file.
        let before = FolderSnapshot(databases)
        #expect(before.entries.keys.sorted() == ["history.sqlite"], "\(before)")
        for format in ["text", "json", "markdown", "html"] {
            let shown = try CLI.run(["history", "show", "--format", format, "--db", database])
            #expect(shown.status == 0 && !shown.stdout.isEmpty, "\(format): \(shown.stderr)")
            #expect(FolderSnapshot(databases) == before, "\(format): \(FolderSnapshot(databases))")
        }
        // An empty file is an empty history, and stays empty.
        let empties = folder + "/empty"
        try FileManager.default.createDirectory(atPath: empties, withIntermediateDirectories: true)
        let empty = empties + "/history.sqlite"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let emptyBefore = FolderSnapshot(empties)
        let shownEmpty = try CLI.run(["history", "show", "--db", empty])
        #expect(
            shownEmpty.status == 0 && shownEmpty.stdout.contains("0 reports"),
            "\(shownEmpty.stdout)\(shownEmpty.stderr)")
        #expect(FolderSnapshot(empties) == emptyBefore, "\(FolderSnapshot(empties))")

        // A user who may read the file but write neither it nor its folder: as nobody when the
        // tests run as root (root writes everywhere; skipped where setpriv cannot switch), else
        // this user with the modes taken away.
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        let root = getuid() == 0
        if !root || (try? Shell.run(nobody + ["/bin/true"], executable: "/usr/bin/setpriv"))?.status == 0 {
            if root {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: report)
            } else {
                try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database)
                try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: databases)
            }
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: databases) }
            func premain(_ arguments: [String]) throws -> CLI.Result {
                root
                    ? try CLI.run(nobody + [CLI.binary] + arguments, executable: "/usr/bin/setpriv")
                    : try CLI.run(arguments)
            }
            let shown = try premain(["history", "show", "--metric", "main", "--db", database])
            #expect(shown.status == 0 && shown.stdout.contains("3 reports"), "\(shown.stdout)\(shown.stderr)")
            let added = try premain(["history", "add", report, "--db", database])
            #expect(
                added.status == 3 && added.stderr.hasPrefix("Error: \(database): cannot write the history database"),
                "\(added.stderr)")
            #expect(added.stderr.split(separator: "\n").count == 1, "\(added.stderr)")
            #expect(FolderSnapshot(databases) == before, "\(FolderSnapshot(databases))")
        }

        // An immutable file (chattr +i, where the file system has it): add refuses, leaves nothing.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: databases)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database)
        guard (try? Shell.run(["chattr", "+i", database]))?.status == 0 else { return }
        defer { _ = try? Shell.run(["chattr", "-i", database]) }
        let immutableBefore = FolderSnapshot(databases)
        let refused = try CLI.run(["history", "add", report, "--db", database])
        #expect(
            refused.status == 3 && refused.stderr.hasPrefix("Error: \(database): cannot write the history database"),
            "\(refused.stderr)")
        #expect(FolderSnapshot(databases) == immutableBefore, "\(FolderSnapshot(databases))")
        #expect(try CLI.run(["history", "show", "--db", database]).status == 0)
        #expect(FolderSnapshot(databases) == immutableBefore, "\(FolderSnapshot(databases))")
    }

    /// Issue 23, defect 12: a FIFO read "no history database; create one…" (and `add` waited on
    /// it for ever), a folder given to `pr --history-db` read "does not exist yet", and
    /// `history add --db /dev/null` left `/dev/null-journal`. Each now says what the path is,
    /// and SQLite never opens it.
    @Test func databaseThatIsNotAFileIsNamedForWhatItIs() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try Self.report(in: folder)
        let places = folder + "/places"
        try FileManager.default.createDirectory(atPath: places + "/folder.sqlite", withIntermediateDirectories: true)
        #expect(mkfifo(places + "/fifo.sqlite", 0o644) == 0)
        let before = FolderSnapshot(places)
        for (path, what) in [
            (places + "/fifo.sqlite", "not a regular file (a FIFO)"),
            (places + "/folder.sqlite", "a folder, not a history database"),
        ] {
            for arguments in [["history", "show", "--db", path], ["history", "add", report, "--db", path]] {
                let result = try Self.guarded(arguments)
                #expect(
                    result.status == 3 && result.stderr.hasPrefix("Error: \(path): \(what)"),
                    "\(arguments): \(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            }
        }
        #expect(FolderSnapshot(places) == before, "\(FolderSnapshot(places))")
        // A FIFO where SQLite keeps its log: named, never opened.
        let database = places + "/history.sqlite"
        #expect(try CLI.run(["history", "add", report, "--db", database]).status == 0)
        #expect(mkfifo(database + "-wal", 0o644) == 0)
        for arguments in [["history", "show", "--db", database], ["history", "add", report, "--db", database]] {
            let result = try Self.guarded(arguments)
            #expect(
                result.status == 3 && result.stderr.hasPrefix("Error: \(database)-wal: not a regular file (a FIFO)"),
                "\(arguments): \(result.stderr)")
        }
        // pr reads the trend before anything else: a folder is named as one, not as missing.
        let empty = folder + "/build"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let pr = try Self.guarded([
            "pr", "--no-config", "--base", empty, "--head", empty, "--history-db", places + "/folder.sqlite",
        ])
        #expect(
            pr.stderr.contains("\(places)/folder.sqlite: a folder, not a history database")
                && !pr.stderr.contains("does not exist yet"),
            "\(pr.stderr)")
        let fifo = try Self.guarded([
            "pr", "--no-config", "--base", empty, "--head", empty, "--history-db", places + "/fifo.sqlite",
        ])
        #expect(fifo.stderr.contains("not a regular file (a FIFO)"), "\(fifo.stderr)")
        // A device: refused before SQLite opens it, so no /dev/null-journal.
        let journalBefore = FileManager.default.fileExists(atPath: "/dev/null-journal")
        let device = try Self.guarded(["history", "add", report, "--db", "/dev/null"])
        #expect(
            device.status == 3 && device.stderr.hasPrefix("Error: /dev/null: not a regular file (a character device)"),
            "\(device.stderr)")
        #expect(journalBefore || !FileManager.default.fileExists(atPath: "/dev/null-journal"))
        let shownDevice = try Self.guarded(["history", "show", "--db", "/dev/null"])
        #expect(
            shownDevice.status == 3 && shownDevice.stderr.contains("not a regular file (a character device)"),
            "\(shownDevice.stderr)")
    }

    /// A --db that reads like an SQLite URI is a file name: SQLite (built with URI names on)
    /// used to open "file:x?mode=memory" in memory, and the add stored nothing.
    @Test func databaseNamedLikeAURIIsAFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let report = try Self.report(in: folder)
        for name in ["file:x.sqlite?mode=memory", "a?b#c%25.sqlite"] {
            let added = try CLI.run(["history", "add", report, "--db", name], in: folder)
            #expect(added.status == 0, "\(name): \(added.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "\(FolderSnapshot(folder))")
            let shown = try CLI.run(["history", "show", "--db", name], in: folder)
            #expect(shown.status == 0 && shown.stdout.contains("1 report,"), "\(name): \(shown.stderr)")
        }
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
