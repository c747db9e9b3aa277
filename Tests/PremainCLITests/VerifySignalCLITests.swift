import Foundation
import PremainTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 34, defect 8: `check --verify` installed no signal handlers and no watchdog: SIGINT,
/// SIGTERM and SIGHUP each left `premain-verify-XXXXXX` (both copies) and
/// `premain-measure-XXXXXX` with its FIFO, and after a SIGKILL the launched copy stayed blocked
/// opening the FIFO. Now the same guard as measure and pr: each signal, SIGKILL included (the
/// watchdog), leaves no folder of premain's in TMPDIR and no copy running. The test waits for
/// states (a folder appearing, a process gone) with generous limits; it asserts no duration.
@Suite(.serialized)
struct VerifySignalCLITests {
    static func premainFolders(_ tmp: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).filter { $0.hasPrefix("premain-") }
    }

    /// Polls `condition` every 50 ms for up to `seconds`; whether it became true.
    static func wait(_ seconds: Double, _ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }

    /// Processes whose command line names `text`.
    static func running(_ text: String) -> [String] {
        let result = try? Shell.run(["pgrep", "-af", text])
        return (result?.stdout ?? "").split(separator: "\n").map(String.init).filter { !$0.contains("pgrep") }
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGKILL])
    func verifyLeavesNoFolderNorCopyWhenSignalled(_ signal: Int32) throws {
        let program = try Samples.path("closure/unused/unused-deps")
        let folder = try TemporaryFolders.make("verify-signal-\(signal)")
        let tmp = folder + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let report = folder + "/report.json"
        let measured = try CLI.run([
            "measure", "--runs", "2", "--warmup", "0", "--format", "json", "--output", report, "--", program,
        ])
        try #require(measured.status == 0, "\(measured.stderr)")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["check", "--no-config", "--verify", program, report]
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = tmp
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The copies exist once verify's folder has both.
        let started = Self.wait(60) {
            Self.premainFolders(tmp).contains { name in
                name.hasPrefix("premain-verify-")
                    && FileManager.default.fileExists(atPath: tmp + "/" + name + "/head/unused-deps")
            }
        }
        guard started else {
            process.terminate()
            process.waitUntilExit()
            Issue.record("check --verify made no copies in \(tmp) (it may have finished first)")
            return
        }
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "premain did not die of signal \(signal)")
        // SIGKILL: the watchdog notices and cleans up after premain.
        let clean = Self.wait(45) { Self.premainFolders(tmp).isEmpty && Self.running(tmp).isEmpty }
        #expect(clean, "left in TMPDIR: \(Self.premainFolders(tmp)); running: \(Self.running(tmp))")
    }
}
