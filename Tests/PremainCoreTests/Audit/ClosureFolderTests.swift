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
        let root = TemporaryFolders.root + "/premain-folder-\(UUID().uuidString)"
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
        #expect(
            report.binaries.map(\.path) == [
                root + "/libunused.so", root + "/unused-deps", root + "/sub/deeper/c-hello",
            ])
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
        // Streamed a few binaries at a time: the same bytes, in pieces; a failed write stops it.
        var pieces: [[UInt8]] = []
        #expect(
            try ParallelAuditJSON.stream(parallel, workers: 2, chunk: 3) {
                pieces.append(Array($0))
                return true
            })
        #expect(pieces.count == 2 + (parallel.binaries.count + 2) / 3)
        #expect(String(decoding: pieces.joined(), as: UTF8.self) == (try JSONRenderer.render(parallel)))
        var calls = 0
        #expect(
            try !ParallelAuditJSON.stream(parallel, workers: 2, chunk: 3) { _ in
                calls += 1
                return calls < 2
            })
        #expect(calls == 2)
        // On one thread: one buffer, handed over when it holds a megabyte; the same bytes.
        #expect(try ParallelAuditJSON.render(parallel, workers: 1) == JSONRenderer.render(parallel))
        #expect(
            try ParallelAuditJSON.render(parallel, workers: 1, schemaVersion: 2)
                == ParallelAuditJSON.render(parallel, workers: 2, schemaVersion: 2))
        calls = 0
        #expect(
            try !ParallelAuditJSON.stream(parallel, workers: 1) { _ in
                calls += 1
                return false
            })
        #expect(calls == 1)
        // The JSON reads back into the same report (per-object costs are not written).
        let text = try ParallelAuditJSON.render(parallel, workers: 2)
        let decoded = try JSONRenderer.decode(AuditReport.self, from: text)
        #expect(try JSONRenderer.render(decoded) == text)
        #expect(decoded.binaries.compactMap(\.closure?.totals) == parallel.binaries.compactMap(\.closure?.totals))
    }

    /// Schema 2 writes each closure object once, in `objects`; closures (objects, loaders and
    /// `top`) refer to it by id. It reads back into the same report as schema 1, in parallel
    /// as in plain rendering.
    @Test func schemaTwoWritesEachClosureObjectOnceAndReadsBackTheSame() throws {
        let report = BatchAudit(workers: 2).run(["/opt/swift/usr/lib/swift/linux"])
        let one = try ParallelAuditJSON.render(report, workers: 2, schemaVersion: 1)
        let two = try ParallelAuditJSON.render(report, workers: 2, schemaVersion: 2)
        #expect(two == (try ParallelAuditJSON.render(report, workers: 1, schemaVersion: 2)))
        #expect(two.utf8.count < one.utf8.count, "\(two.utf8.count) of \(one.utf8.count) bytes")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(two.utf8)) as? [String: Any])
        #expect(document["schemaVersion"] as? Int == 2)
        let table = try #require(document["objects"] as? [[String: Any]])
        let paths = table.compactMap { $0["path"] as? String }
        #expect(Set(paths).count == paths.count)
        #expect(table.map { $0["id"] as? Int } == Array(0..<table.count))
        let everyObject = Set(report.binaries.flatMap { $0.closure?.objects.map(\.path) ?? [] })
        #expect(Set(paths) == everyObject)
        let first = try #require(
            (document["binaries"] as? [[String: Any]])?.compactMap { $0["closure"] as? [String: Any] }.first)
        for object in try #require(first["objects"] as? [[String: Any]]) {
            #expect(object["object"] is Int && object["path"] == nil && object["realPath"] == nil)
            #expect((object["depth"] as? Int == 1) == (object["neededBy"] == nil))
        }
        // The same report, whichever schema it was written in.
        var fromTwo = try JSONRenderer.decode(AuditReport.self, from: two)
        #expect(fromTwo.schemaVersion == 2)
        fromTwo.schemaVersion = 1
        #expect(fromTwo == (try JSONRenderer.decode(AuditReport.self, from: one)))
        #expect(try JSONRenderer.render(fromTwo) == one)
        // An id the table does not hold is refused, naming where.
        let broken = two.replacingOccurrences(of: "\"object\" : 0,", with: "\"object\" : 99999,")
        #expect(throws: DecodingError.self) { try JSONRenderer.decode(AuditReport.self, from: broken) }
        do {
            _ = try RuleInputLoader.report(broken)
            Issue.record("a dangling object id was accepted")
        } catch {
            #expect(
                error.description.contains("object 99999 is not in the report's objects table"), "\(error.description)")
            #expect(error.description.contains("closure.objects["), "\(error.description)")
        }
    }

    @Test func missingPathsAreErrorsAndClosuresCanBeTurnedOff() throws {
        let report = BatchAudit(closure: nil).run(["/nonexistent/premain", "/bin/ls"])
        #expect(report.errors.map(\.reason) == [.missing])
        #expect(report.binaries.count == 1)
        #expect(report.binaries.first?.closure == nil)
        #expect(report.binaries.first?.unusedNeeded == nil)
    }
}
