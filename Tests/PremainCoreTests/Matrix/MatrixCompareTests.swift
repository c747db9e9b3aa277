import Foundation
import PremainLaunch
import PremainModel
import PremainRender
import Testing

/// `compare` over the launch matrix with a scripted launcher: the rows' blocks interleaved,
/// each row its own report naming its row, the worst row's verdict and exit code.
struct MatrixCompareTests {
    func rows() -> [CompareRowRequest] {
        var fast = CompareRowRequest(base: "/a/app", head: "/b/app", arguments: ["--version"], environment: [])
        fast.launch = "version"
        var slow = CompareRowRequest(base: "/a/app", head: "/b/app", arguments: ["big.swift"], environment: ["X=1"])
        slow.launch = "format"
        slow.stdinPath = "/dev/zero"
        slow.workingDirectory = "/tmp"
        slow.stop = .firstOutput
        return [fast, slow]
    }

    @Test func rowsAreInterleavedAndTheWorstRowDecides() throws {
        // Only `format` is slower in head (+3 ms at main); `version` is the same in both.
        let launcher = ScriptedLauncher(answering: { request in
            let regressed = request.arguments.last == "big.swift" && request.executablePath == "/b/app"
            return CompareTests.launch(mainMs: 5 + (regressed ? 3 : 0), cpuMs: 4 + (regressed ? 3 : 0))
        })
        var session = CompareSession(launcher: launcher)
        session.clock = { 0 }
        session.loadAverage = { 0.2 }
        let reports = try session.compare(rows: rows(), options: CompareTests.options(minRuns: 8, maxRuns: 40))
        #expect(reports.map(\.rowLabel) == ["version", "format"])
        #expect(reports.map(\.verdict) == [.noChange, .regression])
        // Warm-ups of each row, then one block of each row in turn: the rows alternate every four launches.
        let rowOfLaunch = launcher.requests.map { $0.arguments.last == "big.swift" ? "F" : "V" }
        #expect(rowOfLaunch.prefix(4).joined() == "VVFF")
        #expect(rowOfLaunch[4..<20].joined() == "VVVVFFFFVVVVFFFF")
        let format = launcher.requests.filter { $0.arguments.last == "big.swift" }
        #expect(
            format.allSatisfy {
                $0.stop == .firstOutput && $0.stdinPath == "/dev/zero" && $0.workingDirectory == "/tmp"
            })
        #expect(format.allSatisfy { $0.environment == ["X=1"] })

        let matrix = CompareMatrixReport(launches: reports)
        #expect(matrix.verdict == .regression && matrix.exitCode == .regression)
        let text = MatrixText.compareText(matrix, width: 100)
        #expect(text.hasPrefix("premain compare: regression (the worst of 2 rows)\n"))
        #expect(text.contains("── format ──"))
        let json = try JSONRenderer.render(matrix)
        #expect(json.contains(#""kind" : "compare-matrix""#) && json.contains(#""launch" : "format""#))
        let decoded = try JSONDecoder().decode(CompareMatrixReport.self, from: Data(json.utf8))
        #expect(decoded.launches.map(\.rowLabel) == ["version", "format"])
    }

    @Test func oneTimeBudgetLeavesTheUndecidedRowsInconclusive() throws {
        // Noisy in both builds: never decides; the clock passes the budget after the first round.
        let launcher = ScriptedLauncher { _, index in CompareTests.launch(mainMs: 5 + Double(index % 7), cpuMs: 4) }
        var session = CompareSession(launcher: launcher)
        let ticks = Counter()
        session.clock = { ticks.next() * 1_000_000_000 }
        session.loadAverage = { 0.2 }
        var options = CompareTests.options(minRuns: 8, maxRuns: 400)
        options.settings.maxSeconds = 3
        let reports = try session.compare(rows: rows(), options: options)
        #expect(reports.allSatisfy { $0.runs.stop == .maxTime && $0.verdict == .inconclusive })
        #expect(CompareMatrixReport(launches: reports).exitCode == .inconclusive)
    }
}

/// A clock for the tests: 0, 1, 2, … on successive reads.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0

    func next() -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        defer { value += 1 }
        return value
    }
}
