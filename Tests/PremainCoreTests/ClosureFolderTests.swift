import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// Folder mode: what is collected below a folder, parallel audits equal serial ones, and the
/// parallel JSON equals the plain renderer's.
@Suite struct ClosureFolderTests {
    /// A folder with ELF files, a text file, a symlink loop, a symlink to a file, a hard link
    /// and a nested folder.
    static func makeTree() throws -> String {
        let root = NSTemporaryDirectory() + "premain-folder-\(UUID().uuidString)"
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/sub/deeper", withIntermediateDirectories: true)
        try manager.copyItem(atPath: Samples.path("closure/unused/unused-deps"), toPath: root + "/unused-deps")
        try manager.copyItem(atPath: Samples.path("closure/unused/libunused.so"), toPath: root + "/libunused.so")
        try manager.copyItem(atPath: Samples.path("c-hello/c-hello"), toPath: root + "/sub/deeper/c-hello")
        try "not ELF\n".write(toFile: root + "/sub/readme.txt", atomically: true, encoding: .utf8)
        try manager.createSymbolicLink(atPath: root + "/sub/loop", withDestinationPath: root)
        try manager.createSymbolicLink(atPath: root + "/sub/alias", withDestinationPath: root + "/unused-deps")
        try manager.linkItem(atPath: root + "/libunused.so", toPath: root + "/sub/hardlink.so")
        return root
    }

    @Test func collectsRegularFilesOnceWithoutFollowingLinks() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let collected = FileCollector.collect([root])
        #expect(collected.files == [root + "/libunused.so", root + "/unused-deps", root + "/sub/deeper/c-hello"])
        #expect(collected.fromFolders.count == 3)
        #expect(collected.skipped == SkippedFiles(others: 1))
        // A file named explicitly is taken even when the folder walk reaches it too.
        let both = FileCollector.collect([root + "/unused-deps", root])
        #expect(both.files.first == root + "/unused-deps")
        #expect(both.files.filter { $0.hasSuffix("unused-deps") }.count == 1)
    }

    @Test func folderAuditSkipsNonELFQuietlyAndSummarizes() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let report = BatchAudit(workers: 2).run([root])
        #expect(report.errors.isEmpty)
        #expect(report.binaries.map(\.path) == [root + "/libunused.so", root + "/unused-deps", root + "/sub/deeper/c-hello"])
        let program = try #require(report.binaries.first { $0.path.hasSuffix("unused-deps") })
        #expect(program.unusedNeeded == ["libunused.so", "libm.so.6"])
        // $ORIGIN of the copied program is the tree: libunused.so is found there.
        #expect(program.closure?.objects.first?.path == root + "/libunused.so")
        let summary = try #require(report.summary)
        #expect(summary.files == 3)
        #expect(summary.filesWithUnused == 1)
        #expect(summary.mostUnused.first?.path == program.path)
        #expect(summary.mostDependencies.first?.path == program.path)
        // A named non-ELF file is still an error.
        let named = BatchAudit().run([root + "/sub/readme.txt"])
        #expect(named.errors.map(\.reason) == [.notELF])
    }

    @Test func parallelAuditEqualsSerialAndParallelJSONEqualsPlain() throws {
        let folder = "/opt/swift/usr/lib/swift/linux"
        let serial = BatchAudit(workers: 1).run([folder])
        let parallel = BatchAudit(workers: 2).run([folder])
        #expect(serial.binaries.count > 10)
        #expect(serial == parallel)
        #expect(try ParallelAuditJSON.render(parallel, workers: 2) == JSONRenderer.render(parallel))
        // The JSON reads back into the same report (per-object costs are not written).
        let text = try ParallelAuditJSON.render(parallel, workers: 2)
        let decoded = try JSONRenderer.decode(AuditReport.self, from: text)
        #expect(try JSONRenderer.render(decoded) == text)
        #expect(decoded.binaries.compactMap(\.closure?.totals) == parallel.binaries.compactMap(\.closure?.totals))
    }

    @Test func missingPathsAreErrorsAndClosuresCanBeTurnedOff() throws {
        let report = BatchAudit(closure: nil).run(["/nonexistent/premain", "/bin/ls"])
        #expect(report.errors.map(\.reason) == [.missing])
        #expect(report.binaries.count == 1)
        #expect(report.binaries.first?.closure == nil)
        #expect(report.binaries.first?.unusedNeeded == nil)
    }
}
