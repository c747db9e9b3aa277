import Foundation

/// What a program printed and how it ended.
public struct ShellResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs programs and collects their output: tools for cross-checks (readelf, ldd), build
/// scripts, and the built premain (see `CLI`).
public enum Shell {
    /// Copies the program at `source` to `destination` with `cp -p`, in a process of its own:
    /// a copy written by this process could be run while another test thread's child, forked
    /// meanwhile, still holds the file open for writing, and exec(2) then fails with ETXTBSY
    /// ("Text file busy"). Throws when `cp` fails.
    public static func copyExecutable(_ source: String, to destination: String) throws {
        let copied = try run(["cp", "-p", source, destination])
        guard copied.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination, "stderr": copied.stderr])
        }
    }

    /// Runs `arguments` (the first is looked up on PATH, unless `executable` is given) with
    /// an extra `environment`, in `folder` (else the current one). Throws when it cannot start.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], in folder: String? = nil,
        executable: String = "/usr/bin/env"
    ) throws -> ShellResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        // Output goes to files, not pipes: a process the program leaves behind holding a pipe
        // (a lingering child of a target) cannot make the read wait, nor a full pipe the child.
        let out = URL(fileURLWithPath: TemporaryFolders.root).appendingPathComponent(
            "premain-test-\(UUID().uuidString).out")
        let err = URL(fileURLWithPath: TemporaryFolders.root).appendingPathComponent(
            "premain-test-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return ShellResult(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
