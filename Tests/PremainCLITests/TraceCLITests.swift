import Foundation
import PremainTestSupport
import Testing

/// `premain trace` as a user runs it: help, usage errors, the JSON contract, and what happens
/// to the target when premain itself is interrupted or killed.
@Suite(.serialized)
struct TraceCLITests {
    @Test func helpEqualsHelpSubcommandAndNamesTheOptions() throws {
        let help = try CLI.run(["trace", "--help"])
        #expect(help.status == 0)
        #expect(try CLI.run(["help", "trace"]).stdout == help.stdout)
        for option in [
            "--until", "--function", "--max-calls", "--runs", "--warmup", "--cpu", "--debug-dir", "--format",
        ] {
            #expect(help.stdout.contains(option), "help lacks \(option)")
        }
        #expect(help.stdout.hasPrefix("OVERVIEW: "))
    }

    @Test func usageErrorsExit64() throws {
        let missing = try CLI.run(["trace"])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("Error: missing expected argument '<command>'"))
        #expect(missing.stderr.contains("See 'premain trace --help'"))
        let bad = try CLI.run(["trace", "--runs", "zero", "--", "/bin/true"])
        #expect(bad.status == 64)
        #expect(try CLI.run(["trace", "--until", "", "--", "/bin/true"]).status == 64)
        #expect(try CLI.run(["trace", "--function", "", "--", "/bin/true"]).status == 64)
    }

    /// The same exit status and words as measure (issue 12: it was 4 in trace, 3 in measure).
    @Test func missingProgramIsAnInputErrorAsInMeasure() throws {
        let result = try CLI.run(["trace", "--bias-ms", "0.01", "--", "/nonexistent/premain-target"])
        #expect(result.status == 3)
        #expect(result.stderr.contains("command not found: /nonexistent/premain-target"))
        let measured = try CLI.run(["measure", "--", "/nonexistent/premain-target"])
        #expect(measured.status == result.status)
    }

    /// A run that fails says why on stderr (it was silent: exit 4 and nothing else).
    @Test func failedRunsAreExplainedOnStderr() throws {
        let failing = try Samples.path("faults/exit-nonzero")
        let result = try CLI.run([
            "trace", "--bias-ms", "0.01", "--runs", "1", "--warmup", "0", "--until", "exit", "--", failing,
        ])
        #expect(result.status == 4)
        #expect(result.stderr.contains("1 of 1 runs: exited with status 3"), "\(result.stderr)")
        let missing = try Samples.path("closure/missing/needs-missing")
        let loader = try CLI.run(["trace", "--bias-ms", "0.01", "--runs", "1", "--warmup", "0", "--", missing])
        #expect(loader.status == 4)
        #expect(
            loader.stderr.contains("the loader failed:")
                && loader.stderr.contains("error while loading shared libraries"),
            "\(loader.stderr)")
    }

    @Test func jsonContract() throws {
        let result = try CLI.run([
            "trace", "--format", "json", "--runs", "2", "--warmup", "0", "--until", "exit", "--", "/bin/true",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["schemaVersion"] as? Int == 1)
        let bias = try #require(json["bias"] as? [String: Any])
        #expect((bias["pairMs"] as? Double ?? 0) > 0 && bias["source"] as? String == "measured")
        let measurement = try #require((json["measurements"] as? [[String: Any]])?.first)
        #expect(measurement["command"] as? [String] == ["/bin/true"])
        #expect(measurement["runs"] as? Int == 2)
        #expect(measurement["conditions"] is [String: Any])
        let milestones = try #require(measurement["milestones"] as? [String: Any])
        #expect(milestones["exit"] is [String: Any] && milestones["main"] is [String: Any])
        let functions = try #require(measurement["functions"] as? [[String: Any]])
        #expect(!functions.isEmpty)  // libc's own initializers at least
        for function in functions {
            for key in ["object", "symbol", "kind", "calls", "inclusive"] {
                #expect(function[key] != nil, "function without \(key): \(function)")
            }
            let inclusive = try #require(function["inclusive"] as? [String: Any])
            for key in ["medianMs", "p90Ms", "minMs", "maxMs", "samplesMs"] {
                #expect(inclusive[key] != nil, "inclusive without \(key)")
            }
        }
    }

    /// premain traces `sh -c 'sleep 30; echo MARK'` (the sleep is a forked child), is stopped by
    /// `signal`, and afterwards no process of that command exists any more.
    func interrupt(with signal: Int32) throws {
        let mark = "premain-trace-interrupt-\(UUID().uuidString)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = [
            "trace", "--until", "exit", "--runs", "1", "--warmup", "0", "--bias-ms", "0.01",
            "--", "/bin/sh", "-c", "sleep 30; echo \(mark)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until the shell runs its sleep.
        let started = Poll.until { Self.processes(of: mark).contains { $0.contains("sleep 30") && !$0.contains(mark) } }
        #expect(started)
        kill(process.processIdentifier, signal)
        #expect(Poll.exit(of: process), "premain ignored signal \(signal)")
        var left: [String] = []
        let cleaned = Poll.until(seconds: 30) {
            left = Self.processes(of: mark)
            return left.isEmpty
        }
        #expect(cleaned, "left behind after signal \(signal): \(left)")
    }

    @Test func interruptedPremainLeavesNothing() throws { try interrupt(with: SIGINT) }
    @Test func terminatedPremainLeavesNothing() throws { try interrupt(with: SIGTERM) }
    @Test func killedPremainLeavesNothing() throws { try interrupt(with: SIGKILL) }

    /// "pid cmdline" of the live processes whose command line contains `mark`, and of their
    /// children (scans /proc; zombies are left out).
    static func processes(of mark: String) -> [String] {
        let all = ProcessScan.all().filter { $0.state != "Z" }
        let marked = Set(
            all.filter { $0.commandLine.contains(mark) && !$0.commandLine.contains("premain trace") }.map(\.pid))
        return all.filter { marked.contains($0.pid) || marked.contains($0.parent) }.map {
            "\($0.pid) \($0.commandLine)"
        }
    }
}
