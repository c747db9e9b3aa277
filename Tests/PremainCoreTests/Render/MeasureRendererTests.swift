import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// Renderers on a hand-built measurement (scripted samples, fixed conditions), so the output
/// never changes with the machine or the compiler.
struct MeasureRendererTests {
    static let conditions = LaunchConditions(
        kernel: "6.1.0-test #1 SMP", cpuModel: "Test CPU", onlineCPUs: 2, allowedCPUs: [0, 1],
        frequencyGovernor: nil, loadAverage1m: 0.25, glibcVersion: "2.36",
        pinning: CPUPinning(pinned: true, measurerCPU: 0, targetCPU: 1, reason: nil),
        runs: 5, warmup: 1, cold: false, binaryPath: "/opt/app/app", buildID: "abc123",
        environmentOverrides: ["LD_DEBUG=files,statistics"], stdin: "/dev/null", date: "2026-01-02T03:04:05Z")

    static func measurement() -> LaunchMeasurement {
        let lib: [Double] = [10, 11, 10.5, 30, 10.2]
        return MeasurementBuilder().build(
            command: ["/opt/app/app", "--flag"], executablePath: "/opt/app/app", warmup: 1, cold: false,
            conditions: conditions, loaderPhasesMissing: nil,
            samples: lib.map { ScriptedLauncher.run(libMs: $0) },
            plain: lib.map { ScriptedLauncher.run(libMs: $0 - 0.5, instrumented: false) }, residency: [])
    }

    static func golden(_ name: String) -> String {
        Repository.root + "/Tests/Golden/" + name
    }

    static func check(_ text: String, against name: String) throws {
        let path = golden(name)
        if ProcessInfo.processInfo.environment["PREMAIN_UPDATE_GOLDEN"] == "1" {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "differs from Golden/\(name); rerun with PREMAIN_UPDATE_GOLDEN=1 to update")
    }

    @Test func textMatchesGolden() throws {
        let text = MeasureTextRenderer.render(MeasureReport(measurements: [Self.measurement()]))
        try Self.check(text, against: "measure-text.txt")
        for line in text.split(separator: "\n") {
            #expect(line.count <= 100, "line longer than 100 columns: \(line)")
        }
    }

    @Test func waterfallBarsFollowTheTimeAxis() throws {
        let waterfall = WaterfallRenderer.render(Self.measurement(), width: 100)
        let lines = waterfall.split(separator: "\n").map(String.init)
        let library = try #require(lines.first { $0.contains("libwork.so") })
        let program = try #require(lines.first { $0.contains("app (exe)") })
        // libwork.so's bar starts before the executable's and is longer (10.5 ms against 1 ms).
        let libStart = try #require(library.firstIndex(of: "#"))
        let exeStart = try #require(program.firstIndex(of: "#"))
        #expect(
            library.distance(from: library.startIndex, to: libStart)
                < program.distance(from: program.startIndex, to: exeStart))
        #expect(library.filter { $0 == "#" }.count > 5 * program.filter { $0 == "#" }.count)
        #expect(lines.allSatisfy { $0.count <= 100 })
    }

    @Test func jsonCarriesTheContract() throws {
        let json = try JSONRenderer.render(MeasureReport(measurements: [Self.measurement()]))
        try Self.check(json, against: "measure.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(root["schemaVersion"] as? Int == 1)
        let first = try #require((root["measurements"] as? [[String: Any]])?.first)
        #expect(first["command"] as? [String] == ["/opt/app/app", "--flag"])
        #expect(first["runs"] as? Int == 5)
        #expect(first["cold"] as? Bool == false)
        #expect(first["conditions"] is [String: Any])
        let milestones = try #require(first["milestones"] as? [String: Any])
        for name in ["main", "firstOutput", "exit"] {
            let time = try #require(milestones[name] as? [String: Any], "milestones.\(name)")
            for key in ["medianMs", "p90Ms", "minMs", "maxMs"] { #expect(time[key] is Double, "\(name).\(key)") }
            #expect((time["samplesMs"] as? [Double])?.count == 5)
        }
        let objects = try #require(first["objects"] as? [[String: Any]])
        let library = try #require(objects.first { $0["path"] as? String == "/opt/app/libwork.so" })
        let initializers = try #require(library["initializers"] as? [String: Any])
        #expect(initializers["medianMs"] as? Double == 10.5)
        #expect(initializers["samplesMs"] as? [Double] == [10, 11, 10.5, 30, 10.2])
        let decoded = try JSONRenderer.decode(MeasureReport.self, from: json)
        #expect(decoded == MeasureReport(measurements: [Self.measurement()]))
    }
}
