import Foundation
import PremainSystem
import PremainTestSupport
import Testing

/// The pieces of a folder walk that took shortcuts: heads read into one array.
@Suite struct FolderWalkTests {
    @Test func headsAreTheFirstBytesOfRegularFiles() throws {
        let folder = try TemporaryFolders.make("heads")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes = (0..<100).map { UInt8($0) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/long"))
        try Data(bytes.prefix(10)).write(to: URL(fileURLWithPath: folder + "/short"))
        try Data().write(to: URL(fileURLWithPath: folder + "/empty"))
        #expect(LocalFiles.head(folder + "/long", count: 64) == Array(bytes.prefix(64)))
        #expect(LocalFiles.head(folder + "/short", count: 64) == Array(bytes.prefix(10)))
        #expect(LocalFiles.head(folder + "/empty", count: 64) == [])
        #expect(LocalFiles.head(folder + "/long", count: 0) == [])
        #expect(LocalFiles.head(folder + "/missing", count: 64) == nil)
        #expect(LocalFiles.head(folder, count: 64) == nil)
        #expect(mkfifo(folder + "/fifo", 0o600) == 0)
        #expect(LocalFiles.head(folder + "/fifo", count: 64) == nil)
    }
}
