import Foundation
import PremainCore
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
        #expect(collected.files == [root + "/libunused.so", root + "/unused-deps", root + "/sub/readme.txt",
                                    root + "/sub/deeper/c-hello"])
        #expect(collected.fromFolders.count == 4)
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
        #expect(named.errors.map(\.reason) == ["notELF"])
    }

    @Test func parallelAuditEqualsSerialAndParallelJSONEqualsPlain() throws {
        let folder = "/opt/swift/usr/lib/swift/linux"
        let serial = BatchAudit(workers: 1).run([folder])
        let parallel = BatchAudit(workers: 2).run([folder])
        #expect(serial.binaries.count > 10)
        #expect(serial == parallel)
        #expect(try ParallelAuditJSON.render(parallel, workers: 2) == JSONRenderer.render(parallel))
        let decoded = try JSONRenderer.decode(AuditReport.self, from: ParallelAuditJSON.render(parallel, workers: 2))
        #expect(decoded == parallel)
    }

    /// FastJSONEncoder writes what Foundation's JSONEncoder writes, byte for byte.
    @Test func fastEncoderEqualsFoundation() throws {
        let samples = try [Samples.path("closure"), Samples.path("cxx-static-init"), Samples.path("swift-startup")]
        let report = BatchAudit().run(["/usr/lib/x86_64-linux-gnu/libc.so.6", "/opt/swift/usr/bin/swift-frontend",
                                       "/opt/swift/usr/lib/swift/linux", "/usr/lib/x86_64-linux-gnu/Scrt1.o",
                                       "/nonexistent"] + samples)
        #expect(report.binaries.count > 20)
        let foundation = try JSONRenderer.render(report)
        let fast = try FastJSONEncoder.render(report)
        if fast != foundation {
            let a = foundation.split(separator: "\n", omittingEmptySubsequences: false)
            let b = fast.split(separator: "\n", omittingEmptySubsequences: false)
            let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
            Issue.record("first difference at line \(first?.offset ?? -1): \(first.map { "\($0.element.0) | \($0.element.1)" } ?? "length")")
        }
        #expect(try ParallelAuditJSON.render(report, workers: 2) == foundation)
        struct Odd: Codable, Equatable {
            var text = "q\"\\/\n\t\u{1}\u{1b}\u{7f}é\u{2028}\r\u{8}\u{c}"
            var numbers: [Double] = [0, 1, -3, 0.1, 1e-7, 1e15, 1e16, 123.456]
            var empty: [String] = []
            var emptyMap: [String: Int] = [:]
            var map = ["b": 1, "a": 2, "B": 3, "a10": 4, "a2": 5]
            var nested: [[Int]] = [[], [1, 2]]
            var optional: Int? = nil
            var present: Int? = 7
            var big = UInt64.max
        }
        #expect(try FastJSONEncoder.render(Odd()) == JSONRenderer.render(Odd()))
    }

    @Test func missingPathsAreErrorsAndClosuresCanBeTurnedOff() throws {
        let report = BatchAudit(closure: nil).run(["/nonexistent/premain", "/bin/ls"])
        #expect(report.errors.map(\.reason) == ["missing"])
        #expect(report.binaries.count == 1)
        #expect(report.binaries.first?.closure == nil)
        #expect(report.binaries.first?.unusedNeeded == nil)
    }
}
