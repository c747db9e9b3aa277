import Foundation
import PremainJudge
import PremainModel
import PremainTestSupport
import Testing

@testable import PremainAudit

/// A build folder as SwiftPM leaves it (`.build/release`, a symlink, full of `.o`, `.pcm` and
/// JSON files): `audit`, `check` and `diff` read the same files from it, its programs and
/// libraries, and say what they left out.
@Suite struct BuildFolderTests {
    static func withBuildFolder(_ side: String = "base", _ body: (String) throws -> Void) throws {
        let root = try BuildFolders.temporaryRoot("build-folder")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try body(try BuildFolders.swiftPMLike(pairSide: side, in: root))
    }

    @Test func symlinkedFolderWithOrWithoutSlashYieldsOnlyLinkedFiles() throws {
        try Self.withBuildFolder { release in
            for path in [release, release + "/"] {
                let collected = FileCollector.collect([path])
                #expect(collected.files.map(ObjectName.fileName) == ["app", "libcore.so"], "\(path)")
                #expect(collected.skipped.objects == BuildFolders.objectFiles.count)
                #expect(collected.skipped.objectExtensions == [".o", ".pcm"])
                // Archive, module files, the dependency file and both JSON files.
                #expect(collected.skipped.others == BuildFolders.otherFiles.count + BuildFolders.swiftPMJSONFiles.count)
                #expect(collected.reports.isEmpty)
            }
            let withObjects = FileCollector.collect([release], options: .init(includeObjects: true))
            #expect(
                withObjects.files.map(ObjectName.fileName).sorted()
                    == ["Core-1ABC.pcm", "app", "app.c.o", "core.c.o", "libcore.so"])
            #expect(withObjects.skipped.objects == 0)
            let withReports = FileCollector.collect([release], options: .init(reports: true))
            #expect(withReports.reports.map(ObjectName.fileName) == ["description.json", "output-file-map.json"])
        }
    }

    @Test func auditOfTheFolderSaysWhatItSkipped() throws {
        try Self.withBuildFolder { release in
            let report = BatchAudit(closure: nil, workers: 2).run([release])
            #expect(report.errors.isEmpty)
            #expect(report.binaries.map { ObjectName.fileName($0.path) } == ["app", "libcore.so"])
            let skipped = try #require(report.skipped)
            #expect(
                skipped.summary?.hasPrefix(
                    "skipped 3 relocatable objects (.o, .pcm; --include-objects adds them) and 6 other files") == true,
                "\(skipped.summary ?? "")")
            let all = BatchAudit(closure: nil, workers: 2, includeObjects: true).run([release])
            #expect(all.binaries.filter { $0.header.kind == .relocatable }.count == 3)
        }
    }

    @Test func loaderSkipsJSONThatIsNotAPremainReport() throws {
        try Self.withBuildFolder { release in
            let loaded = RuleInputLoader().load([release + "/"])
            #expect(loaded.errors.isEmpty)
            #expect(loaded.input.objects.map { ObjectName.fileName($0.path) } == ["app", "libcore.so"])
            #expect(loaded.skipped.notReports.map(ObjectName.fileName) == ["description.json", "output-file-map.json"])
            #expect(loaded.skipped.objects == 3)
            // Named on the command line, the same file is an error.
            let named = RuleInputLoader().load([release + "/app.build/output-file-map.json"])
            #expect(named.errors.map(\.reason) == [.malformed])
            // A premain report of another shape in the folder is still an error, not skipped.
            try #"{"schemaVersion": 1, "binaries": 3}"#.write(
                toFile: release + "/audit.json", atomically: true, encoding: .utf8)
            let broken = RuleInputLoader().load([release])
            #expect(broken.errors.map { ObjectName.fileName($0.path) } == ["audit.json"])
        }
    }

    @Test func signatureReadsTheELFTypeOfBothByteOrders() {
        func header(_ data: UInt8, _ type: [UInt8]) -> ArraySlice<UInt8> {
            var bytes: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, data] + [UInt8](repeating: 0, count: 10) + type
            bytes += [UInt8](repeating: 0, count: 20)
            return bytes[...]
        }
        #expect(FileSignature.classify(header(1, [1, 0]), name: "a.o") == .object)
        #expect(FileSignature.classify(header(2, [0, 1]), name: "a.o") == .object)
        #expect(FileSignature.classify(header(1, [3, 0]), name: "lib.so") == .linked)
        #expect(FileSignature.classify(header(2, [0, 2]), name: "app") == .linked)
        #expect(FileSignature.classify(header(1, [4, 0]), name: "core") == .other)
        #expect(FileSignature.classify([0x7F, 0x45, 0x4C, 0x46, 2][...], name: "short") == .other)
        #expect(FileSignature.classify(Array("  {\"a\": 1}".utf8)[...], name: "x") == .json)
        #expect(FileSignature.classify(Array("!<arch>\n".utf8)[...], name: "libx.a") == .other)
        #expect(FileSignature.classify([][...], name: "empty.json") == .json)
    }
}
