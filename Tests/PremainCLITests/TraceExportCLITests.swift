import Foundation
import PremainTestSupport
import Testing

/// `--export-trace` on real launches of the Swift sample: the files are valid trace-event JSON
/// (`TraceEventValidation`) with the tracks and slices the launch had. Asserts what happened,
/// never how long it took.
@Suite(.serialized)
struct TraceExportCLITests {
    static func temporaryFile(_ name: String) -> String {
        TemporaryFolders.root + "/premain-export-\(getpid())-\(name)"
    }

    @Test func measureOfTheSwiftSampleExportsOneTrackPerRun() throws {
        let sample = try Samples.path("swift-startup/swift-startup")
        let file = Self.temporaryFile("measure.json")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try CLI.run([
            "measure", "--runs", "3", "--warmup", "0", "--no-observer", "--format", "json",
            "--export-trace", file, "--", sample,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try TraceEventValidation.validate(try String(contentsOfFile: file, encoding: .utf8))
        let launches = events.filter { $0["cat"] as? String == "launch" }
        #expect(launches.count == 3)
        let initializers = events.filter { $0["cat"] as? String == "initializers" }
            .compactMap { ($0["args"] as? [String: Any])?["object"] as? String }
        #expect(initializers.contains { $0.hasSuffix("/libswiftCore.so") })
        #expect(initializers.contains(sample))
        for milestone in ["main", "first output", "exit"] {
            #expect(events.filter { $0["name"] as? String == milestone && $0["ph"] as? String == "i" }.count == 3)
        }
        // The report itself keeps no raw runs unless --raw asked for them.
        #expect(!result.stdout.contains("\"rawSamples\""))
    }

    @Test func traceOfTheSwiftSampleExportsEachCallWithItsSource() throws {
        let sample = try Samples.path("swift-startup/swift-startup")
        let file = Self.temporaryFile("trace.json")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try CLI.run([
            "trace", "--runs", "2", "--warmup", "0", "--format", "json", "--export-trace", file, "--", sample,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try TraceEventValidation.validate(try String(contentsOfFile: file, encoding: .utf8))
        let calls = events.filter { $0["cat"] as? String == "call" }
        #expect(Set(calls.map { $0["pid"] as? Int ?? 0 }) == [1, 2])
        let lazy = calls.filter {
            ($0["args"] as? [String: Any])?["symbol"] as? String == "$s12SwiftStartup11homeCatalog_WZ"
        }
        #expect(lazy.count == 2)
        let args = try #require(lazy.first?["args"] as? [String: Any])
        #expect((args["source"] as? String)?.hasSuffix("main.swift:79") == true)
        #expect((args["address"] as? String)?.hasPrefix("0x") == true && args["object"] as? String == sample)
        #expect(events.contains { $0["name"] as? String == "main" && $0["ph"] as? String == "i" })
    }

    @Test func unwritableTraceFileIsAnError() throws {
        let result = try CLI.run([
            "measure", "--runs", "1", "--warmup", "0", "--no-observer",
            "--export-trace", "/nonexistent-folder/x/trace.json", "--", "/bin/true",
        ])
        #expect(result.status == 70)
        #expect(
            result.stderr.hasPrefix("Error: cannot write /nonexistent-folder/x/trace.json: no such file or directory"),
            "\(result.stderr)")
    }
}
