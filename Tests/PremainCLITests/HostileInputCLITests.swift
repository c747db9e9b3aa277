import Foundation
import PremainTestSupport
import Testing

/// The defects of issue 14 as a user meets them: each command given the crafted input ends
/// with a clear one-line error or the correct result, never a crash, a hang or a false success.
@Suite struct HostileInputCLITests {
    let folder: String = {
        let path = TemporaryFolders.root + "/premain-hostile-cli-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// premain under `timeout`, so that a regression to a hang fails instead of waiting forever.
    func premain(_ arguments: [String]) throws -> ShellResult {
        try Shell.run(["timeout", "60", CLI.binary] + arguments)
    }

    // 1. Crash — long Swift symbol names, in audit, check and diff.
    @Test func longSwiftSymbolNameIsAuditedCheckedAndDiffed() throws {
        let original = try Samples.path("swift-startup/swift-startup")
        let renamed = folder + "/swift-startup-long-name"
        let longName = "$s12SwiftStartup1xSi" + String(repeating: "Sg", count: 105_000) + "vpWZ"
        let mapping = folder + "/rename.txt"
        try "$s12SwiftStartup11homeCatalog_WZ \(longName)\n".write(toFile: mapping, atomically: true, encoding: .utf8)
        let objcopy = try Shell.run(["objcopy", "--redefine-syms=" + mapping, original, renamed])
        #expect(objcopy.status == 0, "\(objcopy.stderr)")
        let audit = try premain(["audit", "--format", "json", "--no-closure", renamed])
        #expect(audit.status == 0, "\(audit.stderr)")
        #expect(audit.stdout.contains(String(longName.prefix(200))), "the long name is kept mangled")
        for arguments in [["check", "--no-config", renamed], ["diff", "--no-config", renamed, renamed]] {
            let result = try premain(arguments)
            #expect(result.status == 0 || result.status == 1, "\(arguments[0]): \(result.status) \(result.stderr)")
        }
    }

    // 4. Hang on a FIFO argument.
    @Test func fifoArgumentIsAnErrorNotAHang() throws {
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        for arguments in [["audit", fifo], ["check", "--no-config", fifo], ["diff", "--no-config", fifo, fifo]] {
            let result = try premain(arguments)
            #expect(result.status == 3, "\(arguments[0]): \(result.status)")
            #expect(
                result.stderr.split(separator: "\n").first == "Error: \(fifo): not a regular file", "\(result.stderr)")
        }
    }

    // 9. Lost output reported as success.
    @Test func failedWriteIsAnErrorWithNonZeroExit() throws {
        let toFile = try premain(["audit", "--no-closure", "--output", "/dev/full", "/bin/true"])
        #expect(toFile.status == 70)
        #expect(toFile.stderr == "Error: cannot write /dev/full: no space left on device\n")
        let toStdout = try Shell.run(["bash", "-c", "\"$0\" audit --no-closure /bin/true >/dev/full", CLI.binary])
        #expect(toStdout.status == 70)
        #expect(toStdout.stderr == "Error: cannot write to standard output: no space left on device\n")
        let help = try Shell.run(["bash", "-c", "\"$0\" --help >/dev/full", CLI.binary])
        #expect(help.status == 70)
    }

    // 10. check and diff skipped broken files in folders silently.
    @Test func brokenELFInAFolderIsAnErrorForCheckAndDiffAsForAudit() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Samples.path("cxx-static-init/libinit.so"))))
        bytes[4] = 7  // EI_CLASS: neither ELFCLASS32 nor ELFCLASS64
        let build = folder + "/build"
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: build + "/libbroken.so", contents: Data(bytes))
        for arguments in [["audit", build], ["check", "--no-config", build], ["diff", "--no-config", build, build]] {
            let result = try premain(arguments)
            #expect(result.status == 3, "\(arguments[0]): \(result.status) \(result.stderr)")
            #expect(
                result.stderr.contains("Error: \(build)/libbroken.so: invalid ELF class 7"),
                "\(arguments[0]): \(result.stderr)")
        }
    }

    // 15. check and diff followed symbolic links inside folders.
    @Test func symbolicLinksInsideFoldersAreNotFollowedByAnyCommand() throws {
        let build = folder + "/linked"
        try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: build + "/libinit.so",
            withDestinationPath: try Samples.path("cxx-static-init/libinit.so"))
        let audit = try premain(["audit", "--format", "json", "--no-closure", build])
        #expect(
            audit.stdout.contains("\"binaries\" : [\n\n  ]") || audit.stdout.contains("\"binaries\" : []"),
            "\(audit.stdout)")
        let diff = try premain(["diff", "--no-config", "--format", "json", build, build])
        #expect(diff.status == 0, "\(diff.stderr)")
        #expect(!diff.stdout.contains("libinit"), "diff read the linked library")
        let check = try premain(["check", "--no-config", "--format", "json", build])
        #expect(!check.stdout.contains("libinit"), "check read the linked library")
    }

    // 16. trace --cpu 7 on 2 CPUs reported as pinned.
    @Test func traceRefusesACPUItMayNotRunOn() throws {
        let result = try premain(["trace", "--cpu", "4095", "--", "/bin/true"])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix("Error: --cpu 4095 is not a CPU this process may run on (allowed: "),
            "\(result.stderr)")
    }

    // 17. diff of a measure report against an audit passed silently.
    @Test func diffOfAMeasureReportAgainstAnAuditIsRefused() throws {
        let measure = Repository.root + "/Tests/Golden/measure.json"
        let result = try premain(["diff", "--no-config", measure, try Samples.path("cxx-static-init/libinit.so")])
        #expect(result.status == 3)
        #expect(
            result.stderr == "Error: base holds measured launches and head audited objects: nothing to compare; "
                + "give two builds, two audits, two measure reports or two trace reports\n")
    }

    // 17. failOn "never" was accepted on the command line only.
    @Test func failOnNeverIsAcceptedInPremainJSON() throws {
        let config = folder + "/premain.json"
        try #"{"failOn": "never", "budgets": {"maxInitializersPerObject": 0}}"#.write(
            toFile: config, atomically: true, encoding: .utf8)
        let result = try premain(["check", "--config", config, try Samples.path("cxx-static-init/libinit.so")])
        #expect(result.status == 0, "\(result.stderr)")
        let strict = folder + "/strict.json"
        try #"{"budgets": {"maxInitializersPerObject": 0}}"#.write(toFile: strict, atomically: true, encoding: .utf8)
        #expect(try premain(["check", "--config", strict, try Samples.path("cxx-static-init/libinit.so")]).status == 1)
    }
}
