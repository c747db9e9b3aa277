import Foundation
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import Testing

/// `measure` over the launch matrix with a scripted launcher: one series per row, each row's
/// launch set-up reaching its requests, and the rows named in every format.
struct MatrixMeasureTests {
    static let config = #"""
        {"launches": [
          {"name": "version", "run": ["/bin/true", "--version"], "until": "first-output"},
          {"name": "format", "run": ["/bin/true", "big.swift"], "temperature": ["warm", "cold"],
           "env": {"LANG": "C"}, "stdin": "/dev/zero", "cwd": "/tmp", "timeout": 3},
          {"name": "serve", "run": ["/bin/true"], "until": {"ready": "listening on \\d+"}}
        ]}
        """#

    func rows(_ names: [String] = []) throws -> [PlannedRow] {
        try ConfigParser.parse(Self.config).launches.rows(named: names).map { try PlannedRow($0) }
    }

    @Test func eachRowIsOneSeriesWithItsOwnSetUp() throws {
        let launcher = ScriptedLauncher(answering: { _ in ScriptedLauncher.run(libMs: 2) })
        var options = MeasureOptions(runs: 2, warmup: 1, timeoutSeconds: 9, observerSeries: false, pin: false)
        options.realtimeMeasurer = false
        options.holdIdleLatency = false
        options.objectFacts = false
        let outcomes = try MatrixMeasureSession(launcher: launcher).run(
            rows: try rows(), environment: ["PATH=/usr/bin", "LANG=en_US.UTF-8"], options: options)
        let measurements = outcomes.map(\.measurement)
        #expect(measurements.map(\.rowLabel) == ["version", "format", "format (cold)", "serve"])
        #expect(measurements.map(\.cold) == [false, false, true, false])
        #expect(
            measurements.map(\.command) == [
                ["/bin/true", "--version"], ["/bin/true", "big.swift"], ["/bin/true", "big.swift"], ["/bin/true"],
            ])
        // 3 launches per row (one warm-up, two counted), rows one after another; the cold row
        // first launches once to find the objects it evicts.
        let requests = launcher.requests
        #expect(requests.count == 13)
        #expect(requests[0..<3].allSatisfy { $0.stop == .firstOutput && $0.timeoutSeconds == 9 })
        let format = requests[3..<6] + requests[7..<10]
        #expect(format.allSatisfy { $0.stop == nil && $0.timeoutSeconds == 3 })
        #expect(format.allSatisfy { $0.stdinPath == "/dev/zero" && $0.workingDirectory == "/tmp" })
        #expect(format.allSatisfy { $0.environment == ["PATH=/usr/bin", "LANG=C"] })
        #expect(requests[0].environment == ["PATH=/usr/bin", "LANG=en_US.UTF-8"])
        #expect(requests[0].stdinPath == nil && requests[0].workingDirectory == nil)
        guard case .ready(let pattern)? = requests[10].stop else {
            Issue.record("serve does not end at its ready line")
            return
        }
        #expect(pattern.source == #"listening on \d+"#)
        // The cold row is evicted before every run and says what stayed resident.
        #expect(measurements[2].coldResidency != nil)
        #expect(measurements[1].coldResidency == nil)

        let report = MeasureReport(measurements: measurements)
        #expect(report.isMatrix)
        let text = MeasureTextRenderer.render(report)
        #expect(text.hasPrefix("premain measure: 4 rows of 3 launches (launch × temperature)\n"))
        #expect(text.contains("premain measure: format (cold): /bin/true big.swift"))
        let markdown = MeasureMarkdownRenderer.render(report)
        #expect(markdown.contains(#"| format \(cold\) | ok |"#))
        let json = try JSONRenderer.render(report)
        #expect(json.contains(#""launch" : "format""#))
        let decoded = try JSONDecoder().decode(MeasureReport.self, from: Data(json.utf8))
        #expect(decoded.measurements.map(\.rowLabel) == measurements.map(\.rowLabel))
    }

    @Test func launchPicksRowsAndABadPatternIsRefusedBeforeAnyLaunch() throws {
        #expect(try rows(["format"]).map(\.row.label) == ["format", "format (cold)"])
        let bad = try ConfigParser.parse(#"{"launches": [{"name": "a", "run": ["x"], "until": {"ready": "(a)\\1"}}]}"#)
        #expect(throws: PatternError.self) { _ = try PlannedRow(bad.launches[0].rows[0]) }
        #expect(MeasureReport(measurements: []).isMatrix == false)
    }
}
