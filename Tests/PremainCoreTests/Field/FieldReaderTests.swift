import LosslessText
import PremainRender
import PremainTestSupport
import Testing

@testable import PremainField
@testable import PremainModel

/// Issue 33: the spool reader and the joining rules of docs/field-record.md on hand-written
/// records: escapes, a path that is not UTF-8, malformed lines, marks, exec chains and drops.
struct FieldReaderTests {
    static let host = "9f2c00000000abcd"
    static let boot = "41ab000000001234"

    /// A launch line; times in ns, `t0` nil for `t0src=none`.
    static func launch(
        pid: Int, exe: String = "/usr/bin/tool", buildId: String? = "abc123", arg1: String? = nil,
        t0: Int?, source: String = "env", version: Int, main: Int, majflt: Int = 0, rbytes: Int? = 0,
        uid: Int = 1000, host: String = host, boot: String = boot, extra: String = ""
    ) -> String {
        var line = "premain-record/1 kind=launch pid=\(pid) uid=\(uid) host=\(host) boot=\(boot) exe=\(exe)"
        if let buildId { line += " buildid=\(buildId)" }
        if let arg1 { line += " arg1=\(arg1)" }
        line += " t0src=\(t0 == nil ? "none" : source)"
        if let t0 { line += " t0=\(t0)" }
        line += " version=\(version) consistent=\(main - 10) main=\(main) objects=5"
        line += " o=\(version),/lib/x86_64-linux-gnu/libc.so.6"
        if let rbytes { line += " rbytes=\(rbytes)" }
        line += " majflt=\(majflt) minflt=120" + extra + "\n"
        return line
    }

    static func mark(pid: Int, t: Int, name: String, boot: String = boot) -> String {
        "premain-record/1 kind=mark pid=\(pid) boot=\(boot) t=\(t) name=\(name)\n"
    }

    static func report(_ lines: [String], drops: Int = 0) -> FieldReport {
        FieldReportBuilder.report(recordBytes: Array(lines.joined().utf8), drops: drops)
    }

    @Test func timesAreMainMinusBirthAndMainMinusLoaderStart() throws {
        let report = Self.report([
            Self.launch(pid: 1, t0: 1_000_000, version: 3_000_000, main: 5_500_000),
            Self.launch(pid: 2, t0: 10_000_000, version: 11_000_000, main: 12_000_000, extra: " future=1"),
        ])
        let row = try #require(report.rows.first)
        #expect(report.rows.count == 1)
        #expect(row.samples == 2 && row.executable == "/usr/bin/tool" && row.buildId == "abc123")
        #expect(row.temperature == .warm)
        let toMain = try #require(row.timeToMain)
        #expect(toMain.minMs == 2.0 && toMain.maxMs == 4.5 && toMain.sumMs == 6.5)
        #expect(row.loaderToMain.minMs == 1.0 && row.loaderToMain.maxMs == 2.5)
        #expect(report.contract[.env] == 2 && report.contract[.malformed] == 0)
        #expect(report.contract.population.hosts == 1 && report.contract.population.boots == 1)
    }

    @Test func escapesDecodeToTheBytesAndANonUTF8PathStaysItsBytes() throws {
        let report = Self.report([
            Self.launch(pid: 1, exe: "/opt/my%20app/t%25ol", arg1: "--mode%3Dfast", t0: 0, version: 10, main: 100),
            Self.launch(pid: 2, exe: "/opt/caf%E9", t0: 0, version: 10, main: 100),
        ])
        let paths = Set(report.rows.map(\.executable))
        #expect(paths.contains("/opt/my app/t%ol"))
        #expect(report.rows.contains { $0.scenario == "--mode=fast" })
        let latin = try #require(report.rows.first { $0.executable.hasPrefix("/opt/caf") })
        #expect(LosslessUTF8.bytes(latin.executable) == Array("/opt/caf".utf8) + [0xE9])
    }

    @Test func malformedLinesAreCountedAndUnknownKeysIgnored() {
        let good = Self.launch(pid: 1, t0: 0, version: 10, main: 100)
        let report = Self.report([
            good,
            "premain-record/2 kind=launch pid=1\n",  // another version word
            "not a record at all\n",
            good.replacingOccurrences(of: "pid=1 ", with: "pid=x1 "),  // malformed number
            good.replacingOccurrences(of: " main=100", with: ""),  // a required key missing
            good.replacingOccurrences(of: "exe=/usr/bin/tool", with: "exe=/usr/bin/t%4"),  // a bad escape
            good.replacingOccurrences(of: "t0src=env", with: "t0src=sundial"),
            "premain-record/1 kind=sample pid=3 whatever=1\n",  // another kind: not malformed
            String(good.dropLast()),  // a last line cut short
        ])
        #expect(report.contract[.malformed] == 7)
        #expect(report.contract[.otherKind] == 1)
        #expect(report.rows.map(\.samples) == [1])
    }

    @Test func marksJoinTheLatestLaunchOfTheirProcessBeforeThem() throws {
        let report = Self.report([
            Self.launch(pid: 7, t0: 1_000_000, version: 2_000_000, main: 3_000_000),
            Self.mark(pid: 7, t: 9_000_000, name: "ready"),
            Self.mark(pid: 7, t: 12_000_000, name: "ready"),  // the second of a name is not the first
            // pid 7 again later (pid reuse): the mark after its main belongs to it.
            Self.launch(pid: 7, t0: 100_000_000, version: 101_000_000, main: 102_000_000),
            Self.mark(pid: 7, t: 104_000_000, name: "ready"),
            Self.mark(pid: 8, t: 5_000_000, name: "ready"),  // no launch of pid 8
            Self.mark(pid: 7, t: 500_000, name: "early"),  // before any main of pid 7
            Self.launch(pid: 9, t0: 0, version: 1_000_000, main: 2_000_000),  // no mark
        ])
        let row = try #require(report.rows.first)
        let ready = try #require(row.marks.first { $0.name == "ready" })
        #expect(ready.distribution.samples == 2)
        #expect(ready.distribution.minMs == 4.0 && ready.distribution.maxMs == 8.0)
        #expect(ready.missing == 1)
        #expect(report.contract[.marksWithoutLaunch] == 2)
        #expect(report.contract.exclusions.contains { $0.reason == "withoutMark:ready" && $0.count == 1 })
    }

    @Test func anExecChainCountsItsLastImageOnly() throws {
        let report = Self.report([
            // A shell script: /bin/sh's image, then the program it exec'd, same pid and birth.
            Self.launch(pid: 5, exe: "/bin/sh", t0: 1_000, version: 2_000_000, main: 3_000_000),
            Self.launch(pid: 5, exe: "/usr/bin/tool", t0: 1_000, version: 4_000_000, main: 6_000_000),
            // Same pid, another birth: another launch.
            Self.launch(pid: 5, exe: "/bin/sh", t0: 50_000_000, version: 51_000_000, main: 52_000_000),
        ])
        #expect(report.contract[.execdAway] == 1)
        let tool = try #require(report.rows.first { $0.executable == "/usr/bin/tool" })
        #expect(tool.timeToMain?.maxMs == 5.999)
        #expect(report.rows.first { $0.executable == "/bin/sh" }?.samples == 1)
    }

    @Test func exclusionsAndClockSourcesAreCounted() {
        let report = Self.report(
            [
                Self.launch(pid: 1, t0: nil, version: 1_000_000, main: 3_000_000),  // loader to main only
                Self.launch(pid: 2, t0: 0, source: "schedstat", version: 1_000_000, main: 2_000_000),
                Self.launch(pid: 3, t0: 0, version: 1_000_000, main: 61_000_000_000),  // over 60 s
                Self.launch(pid: 4, t0: 5_000_000, version: 1_000_000, main: 6_000_000),  // birth after loader start
            ], drops: 3)
        #expect(report.contract[.dropped] == 3)
        #expect(report.contract[.t0Missing] == 1)
        #expect(report.contract[.overSixtySeconds] == 1)
        #expect(report.contract[.clockInconsistent] == 1)
        #expect(report.contract[.none] == 1 && report.contract[.schedstat] == 1 && report.contract[.env] == 0)
        #expect(report.contract.population.launches == 4)
        let row = report.rows.first
        #expect(row?.samples == 2 && row?.timeToMain?.samples == 1 && row?.loaderToMain.samples == 2)
        #expect(row?.estimatedBirths == 1)
    }

    @Test func temperatureFollowsTheStatedThresholds() {
        let thresholds = FieldThresholds()
        #expect(thresholds.temperature(majorFaults: 0, readBytes: 0) == .warm)
        #expect(thresholds.temperature(majorFaults: 0, readBytes: 65_535) == .warm)
        #expect(thresholds.temperature(majorFaults: 0, readBytes: 65_536) == .mixed)
        #expect(thresholds.temperature(majorFaults: 3, readBytes: 0) == .mixed)
        #expect(thresholds.temperature(majorFaults: 4, readBytes: 0) == .cold)
        #expect(thresholds.temperature(majorFaults: 0, readBytes: 1 << 20) == .cold)
        #expect(thresholds.temperature(majorFaults: 9, readBytes: 14_400_000) == .cold)
        #expect(thresholds.temperature(majorFaults: 0, readBytes: nil) == .warm)
        let report = Self.report([
            Self.launch(pid: 1, t0: 0, version: 10, main: 100, majflt: 9, rbytes: 14_400_000),
            Self.launch(pid: 2, t0: 0, version: 10, main: 100),
        ])
        #expect(Set(report.rows.map(\.temperature)) == [.cold, .warm])
    }

    @Test func spoolFoldersAreReadWithTheirDrops() throws {
        let folder = try TemporaryFolders.make("field-spool")
        var text = ""
        for pid in 1...3000 { text += Self.launch(pid: pid, t0: 0, version: 100, main: 1_000_000 + pid * 1_000) }
        try text.write(toFile: folder + "/1000.records", atomically: true, encoding: .utf8)
        try Self.mark(pid: 1, t: 9_000_000, name: "ready").write(
            toFile: folder + "/1001.records", atomically: true, encoding: .utf8)
        try "\n\n".write(toFile: folder + "/1000.drops", atomically: true, encoding: .utf8)
        try "ignored".write(toFile: folder + "/notes.txt", atomically: true, encoding: .utf8)
        // 9 MiB without a newline, then one good record: one malformed line, the record read.
        let foreign =
            String(repeating: "x", count: 9 << 20) + "\n" + Self.launch(pid: 9999, t0: 0, version: 100, main: 900_000)
        try foreign.write(toFile: folder + "/2000.records", atomically: true, encoding: .utf8)
        let report = try FieldReportBuilder.report(folders: [folder])
        #expect(report.rows.map(\.samples) == [3001])
        #expect(report.contract[.dropped] == 2)
        #expect(report.contract[.malformed] == 1)
        #expect(report.rows.first?.marks.first?.distribution.samples == 1)
        #expect(report.rows.first?.timeToMain?[.p50]?.valueMs == 2.5)
        #expect(report.contract.population.newestFileWrite != nil)
        #expect(throws: FieldReadError.self) { try FieldReportBuilder.report(folders: [folder + "/missing"]) }
    }

    /// The JSON names percentile and unit, matches docs/schemas/field.schema.json, and decodes
    /// back to the same report.
    @Test func jsonMatchesItsSchemaAndRoundTrips() throws {
        var lines: [String] = []
        for pid in 1...50 {
            lines.append(Self.launch(pid: pid, arg1: "serve", t0: 0, version: 500_000, main: 1_000_000 + pid * 20_000))
            lines.append(Self.mark(pid: pid, t: 5_000_000 + pid * 1_000, name: "ready"))
        }
        lines.append(Self.launch(pid: 99, buildId: nil, t0: nil, version: 0, main: 800_000, majflt: 8))
        let report = Self.report(lines)
        let json = try JSONRenderer.render(report)
        #expect(json.contains("\"kind\" : \"field\"") && json.contains("\"p90Ms\"") && json.contains("\"p50LowMs\""))
        #expect(try ReportSchemas.violations(json, schema: "field") == [])
        #expect(try JSONRenderer.decode(FieldReport.self, from: json) == report)
    }
}
