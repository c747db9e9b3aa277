import Foundation
import PremainSystem
import PremainTestSupport
import Testing

/// Issue 36, item 18: one maker of temporary folders (in `$TMPDIR`, mode 0700) and one remover;
/// no other `mkdtemp` in the sources.
struct TemporaryFolderTests {
    @Test func madeInTheParentGivenAndRemoved() throws {
        let parent = try TemporaryFolders.make("tmpdir")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let folder = try LocalFiles.makeTemporaryFolder("measure", in: parent).get()
        #expect(folder.hasPrefix(parent + "/premain-measure-") && folder.count == parent.count + 23)
        let mode = try #require(LocalFiles.status(folder)).st_mode & 0o777
        #expect(mode == 0o700)
        try "x".write(toFile: folder + "/ld-debug.1", atomically: false, encoding: .utf8)
        LocalFiles.removeFolderAndFiles(folder)
        #expect(!FileManager.default.fileExists(atPath: folder))
        let missing = LocalFiles.makeTemporaryFolder("measure", in: parent + "/absent")
        guard case .failure(let error) = missing else {
            Issue.record("made a folder in a missing parent")
            return
        }
        #expect(error.message == "cannot create a temporary folder in \(parent)/absent: no such file or directory")
    }

    @Test func noOtherMkdtempInTheSources() throws {
        let root = Repository.root + "/Sources"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        #expect(!files.isEmpty)
        var callers: [String] = []
        for file in files where file.hasSuffix(".swift") || file.hasSuffix(".c") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            if text.contains("mkdtemp(") { callers.append(file) }
        }
        #expect(callers == ["PremainSystem/LocalFiles.swift"], "use LocalFiles.makeTemporaryFolder: \(callers)")
    }
}
