import Foundation
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

/// Issue 34, defects 5 and 9 through the built premain: a program that forges the loader's
/// `transferring control` line is reported unmeasurable in every format, and a measure report
/// of another program prices no finding of `check`. What happened, never how long it took.
@Suite(.serialized) struct SteeringCLITests {
    static func premain(_ arguments: [String]) throws -> CLI.Result {
        try #require(FileManager.default.isExecutableFile(atPath: CLI.binary), "build premain first: swift build")
        return try CLI.run(arguments)
    }

    @Test func theMeasuredProgramMustNotSteerTheMeasurementInAnyFormat() throws {
        let forge = try Samples.path("steering/forge-main")
        let common = ["measure", "--runs", "2", "--warmup", "0", "--no-observer"]
        let json = try Self.premain(common + ["--format", "json", "--", forge])
        #expect(json.status != 0, "a run that could not be measured is a failed run")
        let measurement = try #require(
            try JSONRenderer.decode(MeasureReport.self, from: json.stdout).measurements.first)
        #expect(measurement.outcomes.map(\.kind) == [.unmeasurable, .unmeasurable])
        #expect(measurement.milestones[.main] == nil && measurement.status == .failed)
        for format in ["text", "markdown"] {
            let shown = try Self.premain(common + ["--format", format, "--", forge])
            #expect(shown.stdout.contains("unmeasurable"), "\(format): \(shown.stdout)")
            #expect(shown.stdout.contains("closed the loader's channel"), "\(format): \(shown.stdout)")
        }
    }

    @Test func checkOfAnotherProgramsMeasureReportPricesNothing() throws {
        let folder = TemporaryFolders.root + "/premain-steering-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let program = try Samples.path("closure/unused/unused-deps")
        let other = try Samples.path("c-hello/c-hello")
        for (name, target) in [("own.json", program), ("other.json", other)] {
            let measured = try Self.premain([
                "measure", "--runs", "2", "--warmup", "0", "--no-observer", "--format", "json",
                "--output", folder + "/" + name, "--", target,
            ])
            #expect(measured.status == 0, "\(measured.stderr)")
        }
        func check(_ report: String) throws -> (CLI.Result, CheckReport) {
            let result = try Self.premain(["check", "--no-config", "--format", "json", program, folder + "/" + report])
            return (result, try JSONRenderer.decode(CheckReport.self, from: result.stdout))
        }
        // The program's own report prices its unused dependencies (the control)...
        let (_, own) = try check("own.json")
        #expect(own.findings.contains { $0.costMs != nil }, "\(own.findings.map(\.rule))")
        #expect(own.warnings == nil)
        // ...another program's prices nothing, and says why on stderr and in the report.
        let (result, foreign) = try check("other.json")
        #expect(foreign.findings.contains { $0.rule == "unused_direct_dependency" })
        #expect(foreign.findings.allSatisfy { $0.costMs == nil && $0.costBasis == nil })
        let warning = try #require(foreign.warnings?.first)
        #expect(warning.contains(other) && warning.contains("ignored"))
        #expect(result.stderr.contains("Note: the measurements of \(other)"))
    }

    /// A library whose name holds a byte that is not UTF-8 (`libun\xff.so`, linked by
    /// steering/named-app and unused by it): its finding is priced from the program's measure
    /// report, where the name is the text `\xff`, and shown with that escape, never U+FFFD.
    @Test func loaderLinesAreNotSplitOnTextAFileNameCanHold() throws {
        let folder = TemporaryFolders.root + "/premain-steering-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let program = try Samples.path("steering/named-app")
        let measured = try Self.premain([
            "measure", "--runs", "2", "--warmup", "0", "--no-observer", "--format", "json",
            "--output", folder + "/m.json", "--", program,
        ])
        #expect(measured.status == 0, "\(measured.stderr)")
        let text = try Self.premain(["measure", "--runs", "1", "--warmup", "0", "--no-observer", "--", program])
        #expect(text.stdout.contains("libun\\xff.so") && !text.stdout.contains("\u{FFFD}"), "\(text.stdout)")
        let result = try Self.premain(["check", "--no-config", "--format", "json", program, folder + "/m.json"])
        let report = try JSONRenderer.decode(CheckReport.self, from: result.stdout)
        let finding = try #require(report.findings.first { $0.rule == "unused_direct_dependency" })
        #expect(finding.subject.symbol == "libun\\xff.so")
        #expect(finding.costMs != nil, "the finding about libun\\xff.so was left unpriced")
    }
}
