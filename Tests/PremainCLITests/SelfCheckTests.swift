import Foundation
import XCTest

/// premain checks itself: the release build (scripts/release, static Swift standard library)
/// must pass `premain check` with the repository's premain.json, and launch within 4× the
/// time of samples/c-hello.
final class SelfCheckTests: XCTestCase {
    /// The release binary, built once into .build/self-check (its own scratch folder: `swift
    /// test` holds the lock of .build).
    static let release: Result<String, FindingsCLI.BuildError> = {
        let output = NSTemporaryDirectory() + "premain-self-check-\(getpid())/premain"
        let script = FindingsCLI.repositoryRoot + "/scripts/release"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, output]
        process.currentDirectoryURL = URL(fileURLWithPath: FindingsCLI.repositoryRoot)
        var environment = ProcessInfo.processInfo.environment
        environment["SCRATCH"] = FindingsCLI.repositoryRoot + "/.build/self-check"
        process.environment = environment
        let log = output + ".log"
        try? FileManager.default.createDirectory(atPath: (output as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: log, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: log) else { return .failure(.init(description: "cannot write \(log)")) }
        process.standardOutput = handle
        process.standardError = handle
        do {
            try process.run()
        } catch {
            return .failure(.init(description: "cannot run scripts/release: \(error)"))
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(.init(description: "scripts/release failed: " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")))
        }
        return .success(output)
    }()

    func testReleaseBinaryPassesItsOwnBudget() throws {
        let binary = try Self.release.get()
        let result = try FindingsCLI.run(["check", "--config", FindingsCLI.repositoryRoot + "/premain.json",
                                          "--fail-on", "warning", binary])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let audit = try FindingsCLI.run(["audit", "--format", "json", binary])
        XCTAssertFalse(audit.stdout.contains("libswiftCore.so"), "the release build links the Swift standard library statically")
    }

    func testReleaseBinaryFailsABudgetThatIsTooTight() throws {
        let binary = try Self.release.get()
        let folder = NSTemporaryDirectory() + "premain-self-tight-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"allowlist": [{"object": "premain", "count": 8, "reason": "too few on purpose"}]}"#
            .write(toFile: folder + "/premain.json", atomically: true, encoding: .utf8)
        let result = try FindingsCLI.run(["check", "--config", folder + "/premain.json", binary])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("premain has 9 static initializers, 1 more than the 8 allowed"), result.stdout)
    }

    /// Until `premain measure` is in this build, the launch is timed to exit (an upper bound of
    /// the time to main plus a tiny `--version`) with the same clock for both programs.
    func testReleaseBinaryLaunchesWithinFourTimesCHello() throws {
        let binary = try Self.release.get()
        let hello = try FindingsCLI.sample("c-hello/c-hello")
        func launch(_ path: String, _ arguments: [String]) throws -> Double {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            let start = DispatchTime.now().uptimeNanoseconds
            try process.run()
            process.waitUntilExit()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        _ = try launch(binary, ["--version"])  // warm the page cache
        // Interleaved, so that a busy moment of the machine hits both series alike.
        var hellos: [Double] = []
        var premains: [Double] = []
        for _ in 0..<41 {
            hellos.append(try launch(hello, []))
            premains.append(try launch(binary, ["--version"]))
        }
        let helloMs = hellos.sorted()[hellos.count / 2]
        let premainMs = premains.sorted()[premains.count / 2]
        XCTAssertLessThanOrEqual(premainMs, 4 * helloMs, "premain \(premainMs) ms vs c-hello \(helloMs) ms")
    }
}
