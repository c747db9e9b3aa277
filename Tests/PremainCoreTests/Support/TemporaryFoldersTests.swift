import Foundation
import PremainTestSupport
import Testing

/// Issue 23: a run of the suite left ~100 MB in /tmp (`premain-self-check-*` with a 38 MB
/// binary each, `premain-hostile-*`, `premain-malformed-*`, `premain-trace-tests-*`, the
/// samples). Everything a test makes now lives under `TemporaryFolders.root`, removed with the
/// process; the watcher that does it after a crash is checked here on a process of our own.
struct TemporaryFoldersTests {
    @Test func aTestRunLeavesNothingInTheTemporaryFolder() throws {
        let folder = try TemporaryFolders.make("folders-test")
        #expect(folder.hasPrefix(TemporaryFolders.root + "/premain-folders-test-"))
        #expect(TemporaryFolders.root.hasPrefix(NSTemporaryDirectory()))
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue)
        #expect(TemporaryFolders.path("folders-test") != TemporaryFolders.path("folders-test"))

        // A folder watched for a process that then ends is removed, without the process's help.
        let watched = try TemporaryFolders.make("watched")
        try Data("x".utf8).write(to: URL(fileURLWithPath: watched + "/file"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["2"]
        try process.run()
        TemporaryFolders.removeWhenGone([watched], pid: process.processIdentifier)
        #expect(FileManager.default.fileExists(atPath: watched), "removed while the process still ran")
        #expect(Poll.exit(of: process))
        #expect(Poll.until { !FileManager.default.fileExists(atPath: watched) })
        try FileManager.default.removeItem(atPath: folder)
    }
}
