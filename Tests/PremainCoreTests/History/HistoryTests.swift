import Foundation
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

@testable import PremainHistory

/// The history database and its step detection, on generated series (fixed seeds) and reports
/// built in code: never on real launches.
struct HistoryTests {
    static func temporaryDatabase(_ name: String = #function) -> String {
        let folder = TemporaryFolders.root + "/premain-history-\(getpid())-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/history.sqlite"
    }

    static func cleanUp(_ database: String) {
        try? FileManager.default.removeItem(atPath: (database as NSString).deletingLastPathComponent)
    }

    // MARK: step detection

    @Test func twoMillisecondStepAtReport18IsNamedForEverySeed() {
        for seed in UInt64(1)...20 {
            let values = HistoryData.series(stepAt: 17, seed: seed)
            let steps = StepDetector().steps(values)
            #expect(steps.map(\.index) == [17], "seed \(seed): \(steps)")
        }
    }

    @Test func noStepNamesNoneForEverySeed() {
        for seed in UInt64(1)...20 {
            let steps = StepDetector().steps(HistoryData.series(seed: seed))
            #expect(steps.isEmpty, "seed \(seed): \(steps)")
        }
    }

    @Test func creepOfSmallRegressionsIsNamedInsideTheCreep() {
        // +0.3 ms at each of 8 commits (10…17), noise 0.1 ms: no single step is large, the level moves 2.4 ms.
        var values = HistoryData.series(count: 30, noiseMs: 0.1, seed: 7)
        for index in values.indices { values[index] += 0.3 * Double(min(8, max(0, index - 9))) }
        let steps = StepDetector().steps(values)
        #expect(!steps.isEmpty)
        #expect(steps.allSatisfy { (10...18).contains($0.index) }, "\(steps)")
    }

    @Test func countsStepAtEveryChangeOfLevel() {
        let values: [Double] = [100, 100, 100, 100, 112, 112, 112, 112, 112, 110, 110]
        #expect(StepDetector.noise(values) == 0)
        #expect(StepDetector().steps(values).map(\.index) == [4, 9])
    }

    @Test func noiseEstimateIgnoresTheStep() {
        let values = HistoryData.series(noiseMs: 0.3, stepAt: 15, stepMs: 20, seed: 3)
        let noise = StepDetector.noise(values)
        #expect(noise > 0.15 && noise < 0.6, "noise \(noise)")
    }

    // MARK: the store

    @Test func storeNamesTheCommitOfTheStep() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        let store = try HistoryStore(path: database)
        for (index, value) in HistoryData.series(stepAt: 17).enumerated() {
            let json = HistoryData.measureReport(mainMs: value)
            let read = try ReportMetrics.read(json)
            #expect(read.kind == .measure)
            try store.add(
                json: json, kind: read.kind.rawValue, metrics: read.metrics, commit: HistoryData.commit(index + 1),
                recordedAt: "2026-12-01T00:00:00Z")
        }
        let report = try store.report(metrics: [], last: nil, database: database)
        #expect(report.reports == 30)
        #expect(Set(report.series.map(\.metric)) == ["exit", "firstOutput", "loaderDone", "main"])
        let main = try #require(report.series.first { $0.metric == "main" })
        #expect(main.points.count == 30 && main.unit == "ms")
        #expect(main.steps.map(\.commit) == ["c18"])
        let step = try #require(main.steps.first)
        #expect(abs(step.shift - 2) < 0.5)
        // Each report is kept whole.
        #expect(try store.reportJSON(id: 1) == HistoryData.measureReport(mainMs: HistoryData.series(stepAt: 17)[0]))
        // --last keeps the newest points.
        let last = try store.report(metrics: ["main"], last: 10, database: database)
        #expect(last.series.first?.points.first?.commit == "c21")
    }

    @Test func reportsOfOneCommitMakeOnePointTheirMedian() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        let store = try HistoryStore(path: database)
        for (commit, value) in [("a", 10.0), ("a", 12.0), ("a", 30.0), ("b", 11.0)] {
            try store.add(
                json: "{}", kind: "measure", metrics: [HistoryMetric(name: "main", unit: "ms", value: value)],
                commit: commit, recordedAt: "t")
        }
        let points = try #require(try store.series("main")?.points)
        #expect(
            points.map(\.commit) == ["a", "b"] && points.map(\.value) == [12, 11] && points.map(\.reports) == [3, 1])
    }

    @Test func migrationsRunInOrderAndKeepData() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        let old = try HistoryStore(path: database, upTo: 1)
        #expect(try old.schemaVersion() == 1)
        try old.add(
            json: "{}", kind: "measure", metrics: [HistoryMetric(name: "main", unit: "ms", value: 1)], commit: "x",
            recordedAt: "t")
        let migrated = try HistoryStore(path: database)
        #expect(try migrated.schemaVersion() == HistoryStore.currentVersion && HistoryStore.currentVersion == 3)
        #expect(try migrated.reportCount() == 1)
        let indexes = try migrated.connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'reports_by_commit'")
        #expect(indexes.count == 1)
    }

    /// Issue 25: measure stored the loader's look-ups as `loader.symbolLookups` and compare as
    /// `count.symbolLookups`, one quantity in two series. A database of schema 2 holding both
    /// reads as one series, read-only before the migration and after it.
    @Test func loaderCountsOfMeasureAndCompareAreOneSeriesAfterMigration() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        do {
            // What premain wrote at schema 2, by its old names.
            let old = try HistoryStore(path: database, upTo: 2)
            try old.add(
                json: "{}", kind: "measure",
                metrics: [
                    HistoryMetric(name: "main", unit: "ms", value: 4),
                    HistoryMetric(name: "loader.symbolLookups", unit: "count", value: 100),
                    HistoryMetric(name: "loader.relocationsFromCache", unit: "count", value: 7),
                ],
                commit: "a", recordedAt: "t")
            try old.add(
                json: "{}", kind: "compare",
                metrics: [
                    HistoryMetric(name: "main", unit: "ms", value: 5),
                    HistoryMetric(name: "count.symbolLookups", unit: "count", value: 120),
                ],
                commit: "b", recordedAt: "t")
        }
        func lookups(_ store: HistoryStore) throws(HistoryError) -> ([String], [Double]?) {
            (
                try store.metricNames(),
                try store.report(metrics: [], last: nil, database: database).series
                    .first { $0.metric == CountQuantity.symbolLookups.metricName }?.points.map(\.value)
            )
        }
        let expectedNames = ["count.relocationsFromCache", "count.symbolLookups", "main"]
        let unmigrated = try HistoryStore.reading(database) { store throws(HistoryError) in
            (try store.schemaVersion(), try lookups(store))
        }
        #expect(unmigrated.0 == 2 && unmigrated.1.0 == expectedNames && unmigrated.1.1 == [100, 120])
        let migrated = try HistoryStore(path: database)
        #expect(try migrated.schemaVersion() == 3)
        let after = try lookups(migrated)
        #expect(after.0 == expectedNames && after.1 == [100, 120])
        let stored = try migrated.connection.execute("SELECT COUNT(*) FROM metrics WHERE name LIKE 'loader.%'")
        #expect(stored.first?.first?.integer == 0)
        // A new measure report lands in the same series.
        var measure = try JSONDecoder().decode(
            MeasureReport.self, from: Data(HistoryData.measureReport(mainMs: 5).utf8))
        measure.measurements[0].loaderCounts = LoaderCountSummary(
            startup: LoaderCounts(symbolLookups: 130), startupPerRun: [],
            finalPerRun: [])
        try migrated.add(
            json: "{}", kind: "measure", metrics: ReportMetrics.measure(measure), commit: "c", recordedAt: "t")
        #expect(try migrated.series("count.symbolLookups")?.points.map(\.value) == [100, 120, 130])
        // The old name still asks for it.
        #expect(
            try migrated.report(metrics: ["loader.symbolLookups"], last: nil, database: database).series.map(\.metric)
                == ["count.symbolLookups"])
    }

    /// The recorded database of six measure reports (schema 2) reads its look-ups under the new name.
    @Test func recordedSchema2DatabaseReadsLookupsUnderTheirNewName() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        // Fuzz inputs start with a mode byte; mode 0 is the file as it is.
        let recorded = try Data(
            contentsOf: URL(fileURLWithPath: Repository.root + "/Tests/FuzzInputs/history/premain-6-reports"))
        try recorded.dropFirst().write(to: URL(fileURLWithPath: database))
        let names = try HistoryStore.reading(database) { store throws(HistoryError) in try store.metricNames() }
        #expect(names == ["count.symbolLookups", "exit", "main"])
        let store = try HistoryStore(path: database)
        #expect(try store.schemaVersion() == 3 && store.metricNames() == names)
        #expect(try store.series("count.symbolLookups")?.points.count == 6)
    }

    @Test func newerSchemaIsRefused() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        try HistoryStore(path: database).connection.executeScript("PRAGMA user_version = 99")
        #expect(throws: HistoryError.self) { _ = try HistoryStore(path: database) }
        do {
            _ = try HistoryStore(path: database)
        } catch {
            #expect(error.kind == .newerSchema && error.description.contains("99"))
        }
    }

    @Test func damagedOrForeignDatabaseIsAOneLineError() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: URL(fileURLWithPath: database))
        do {
            _ = try HistoryStore(path: database)
            Issue.record("a damaged file opened")
        } catch {
            #expect(error.kind == .damaged)
            #expect(
                error.description.hasPrefix(database + ": not a usable history database")
                    && !error.description.contains("\n"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == garbage)
        // Another program's SQLite database.
        let foreign = Self.temporaryDatabase()
        defer { Self.cleanUp(foreign) }
        try SQLiteConnection(path: foreign, create: true).executeScript("CREATE TABLE photos (id INTEGER)")
        do {
            _ = try HistoryStore(path: foreign)
            Issue.record("a foreign database opened")
        } catch {
            #expect(error.kind == .damaged && error.description.contains("photos"))
        }
    }

    @Test func twoThreadsWritingAtOnceLoseNothing() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        _ = try HistoryStore(path: database)
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            do {
                let store = try HistoryStore(path: database)
                for index in 0..<60 {
                    try store.add(
                        json: "{\"writer\":\(writer),\"index\":\(index)}", kind: "measure",
                        metrics: [HistoryMetric(name: "main", unit: "ms", value: Double(index))],
                        commit: "w\(writer)-\(index)", recordedAt: "t")
                }
            } catch {
                failures.add("\(error)")
            }
        }
        #expect(failures.list.isEmpty, "\(failures.list)")
        let store = try HistoryStore(path: database)
        #expect(try store.reportCount() == 120)
        #expect(try store.series("main")?.points.count == 120)
        let integrity = try store.connection.execute("PRAGMA integrity_check").first?.first?.text
        #expect(integrity == "ok")
    }

    /// Issue 23, defect 2: the first write to a database that does not exist yet, while another
    /// writer holds the new file (its BEGIN IMMEDIATE, as a second `history add` does while it
    /// creates the schema). SQLite answers SQLITE_BUSY at once, without the busy handler, to a
    /// connection that read the file and then asks to write while another writes: the switch to
    /// WAL did just that, so the add failed in ~8 ms with "database is locked" and its report
    /// was lost. It now waits on the busy timeout like every other write.
    @Test func firstAddWhileAnotherWriterHoldsTheNewFileWaitsAndLands() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        // Used by one thread at a time.
        nonisolated(unsafe) let holder = try SQLiteConnection(path: database, create: true)
        try holder.executeScript("BEGIN IMMEDIATE")
        // The holder lets go a while later, from another thread; the store must still be waiting
        // then (its busy timeout is 30 s), never have given up at once.
        let released = DispatchSemaphore(value: 0)
        Thread {
            usleep(200_000)
            try? holder.executeScript("COMMIT")
            released.signal()
        }.start()
        defer { released.wait() }
        let store = try HistoryStore(path: database)
        try store.add(
            json: "{}", kind: "measure", metrics: [HistoryMetric(name: "main", unit: "ms", value: 1)], commit: "a",
            recordedAt: "t")
        #expect(try store.reportCount() == 1)
    }

    /// Issue 23, defect 3: another program's database, given to a write or a read, is refused
    /// before any pragma: its bytes stay as they were (no switch to WAL) and nothing appears
    /// beside it.
    @Test func foreignDatabaseIsRefusedBeforeAnyWrite() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        let folder = (database as NSString).deletingLastPathComponent
        try SQLiteFiles.run("CREATE TABLE photos (id INTEGER); INSERT INTO photos VALUES (7)", in: database)
        let before = FolderSnapshot(folder)
        for create in [true, false] {
            do {
                _ = try HistoryStore(path: database, create: create)
                Issue.record("a foreign database opened")
            } catch {
                #expect(error.kind == .damaged && error.description.contains("photos"), "\(error)")
            }
            #expect(FolderSnapshot(folder) == before, "\(FolderSnapshot(folder))")
        }
        #expect(throws: HistoryError.self) {
            try HistoryStore.reading(database) { store throws(HistoryError) in try store.reportCount() }
        }
        #expect(FolderSnapshot(folder) == before, "\(FolderSnapshot(folder))")
        let header = try #require(before.entries["history.sqlite"]?.bytes)
        #expect(Array(header[18...19]) == [1, 1])
    }

    /// Issue 23, defect 10: a database of an older schema is read read-only as it is (the reads
    /// use only what version 1 made), without migrating it or writing anything.
    @Test func olderSchemaIsReadWithoutMigratingIt() throws {
        let database = Self.temporaryDatabase()
        defer { Self.cleanUp(database) }
        let folder = (database as NSString).deletingLastPathComponent
        do {
            let old = try HistoryStore(path: database, upTo: 1)
            try old.add(
                json: "{}", kind: "measure", metrics: [HistoryMetric(name: "main", unit: "ms", value: 4)], commit: "x",
                recordedAt: "t")
        }
        let before = FolderSnapshot(folder)
        let (version, count, points) = try HistoryStore.reading(database) { store throws(HistoryError) in
            (try store.schemaVersion(), try store.reportCount(), try store.series("main")?.points.count)
        }
        #expect(version == 1 && count == 1 && points == 1)
        #expect(FolderSnapshot(folder) == before, "\(FolderSnapshot(folder))")
        // A write migrates it.
        #expect(try HistoryStore(path: database).schemaVersion() == HistoryStore.currentVersion)
    }

    final class Failures: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var list: [String] = []
        func add(_ failure: String) {
            lock.lock()
            list.append(failure)
            lock.unlock()
        }
    }

    // MARK: reports and renderers

    @Test func everyReportKindIsRecognized() throws {
        #expect(try ReportMetrics.read(HistoryData.measureReport(mainMs: 5)).kind == .measure)
        let trace = RecordedReports.trace(
            command: "/app",
            functions: [
                .init(
                    object: "/app", symbol: "$s3app7catalog_WZ",
                    demangled: "one-time initialization function for app.catalog",
                    kind: "swiftLazyGlobal", samplesMs: [3, 3.1])
            ])
        let read = try ReportMetrics.read(trace)
        #expect(
            read.kind == .trace
                && read.metrics.contains {
                    $0.name == "trace.function.one-time initialization function for app.catalog"
                })
        let compare = try JSONEncoder().encode(try ReportFixtures.compare())
        let compared = try ReportMetrics.read(String(decoding: compare, as: UTF8.self))
        #expect(compared.kind == .compare && compared.metrics.contains { $0.name == "main" && $0.unit == "ms" })
        for bad in [
            "[1]", "{\"schemaVersion\":1}", "not json", "{\"schemaVersion\":1,\"measurements\":[{\"runs\":\"x\"}]}",
        ] {
            #expect(throws: HistoryError.self) { _ = try ReportMetrics.read(bad) }
        }
    }

    /// Issue 35: a launch matrix is one series per launch × temperature × quantity, from a
    /// compare-matrix report and from a measure report of several rows alike.
    @Test func launchMatrixRowsAreSeriesApart() throws {
        var version = try ReportFixtures.compare()
        version.launch = "version"
        var cold = try ReportFixtures.compare()
        cold.launch = "format"
        cold.temperature = .cold
        let matrix = try JSONEncoder().encode(CompareMatrixReport(launches: [version, cold]))
        let read = try ReportMetrics.read(String(decoding: matrix, as: UTF8.self))
        #expect(read.kind == .compareMatrix)
        let names = Set(read.metrics.map(\.name))
        #expect(names.contains("launch.version.warm.main") && names.contains("launch.format.cold.main"))
        #expect(!names.contains("main"))
        #expect(read.metrics.count == 2 * ReportMetrics.compare(version).count)

        var measured = try ReportFixtures.measure()
        let one = ReportMetrics.measure(measured)
        #expect(one.contains { $0.name == "main" })
        var second = measured.measurements[0]
        measured.measurements[0].launch = "version"
        second.launch = "format"
        second.cold = true
        measured.measurements.append(second)
        let rows = Set(ReportMetrics.measure(measured).map(\.name))
        #expect(rows.contains("launch.version.warm.main") && rows.contains("launch.format.cold.main"))
        #expect(rows.count == 2 * Set(one.map(\.name)).count)
    }

    @Test func renderersShowSparklineAndTheStep() throws {
        let points = HistoryData.series(stepAt: 17).enumerated().map { index, value in
            HistoryPoint(commit: HistoryData.commit(index + 1), report: index + 1, recordedAt: "t", value: value)
        }
        let series = HistorySeries(
            metric: "main", unit: "ms", points: points, noise: StepDetector.noise(points.map(\.value)),
            steps: StepDetector().steps(of: points))
        let report = HistoryReport(database: ".premain/history.sqlite", reports: 30, series: [series])
        let text = HistoryTextRenderer.render(report)
        #expect(text.contains("at commit c18 (report 18)") && text.contains("← step"))
        let markdown = HistoryMarkdownRenderer.render(report)
        #expect(markdown.contains("▁") && markdown.contains("█") && markdown.contains("c18"))
        let html = HTMLReportRenderer.render(report)
        #expect(html.contains("<svg") && html.contains("at c18"))
        #expect(HTMLReferenceCheck.externalReferences(in: html).isEmpty)
    }
}

/// `premain pr --history-db`: the trend section of the comment.
struct PullRequestTrendTests {
    @Test func commentCarriesTheTrendWithThisPullRequestsValue() throws {
        let points = HistoryData.series(levelMs: 6, noiseMs: 0.05, stepAt: 17).enumerated().map { index, value in
            HistoryPoint(commit: HistoryData.commit(index + 1), report: index + 1, recordedAt: "t", value: value)
        }
        let series = HistorySeries(
            metric: "main", unit: "ms", points: points, noise: StepDetector.noise(points.map(\.value)),
            steps: StepDetector().steps(of: points))
        let trend = HistoryReport(database: "history.sqlite", reports: 30, series: [series])
        let report = PullRequestTests.report(.compared(PullRequestTests.regression))
        let comment = PullRequestMarkdownRenderer.render(report, trend: trend)
        #expect(comment.contains("### Trend on the base branch"))
        #expect(comment.contains("| main | ") && comment.contains("c18"))
        let head = try #require(PullRequestTests.regression.times.first { $0.quantity == .milestone(.main) }).head
            .medianMs
        #expect(comment.contains(Milliseconds.text(head)))
        #expect(!PullRequestMarkdownRenderer.render(report).contains("Trend on the base branch"))
    }
}
