import Foundation
import PremainSystem
import PremainTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one writer of premain's files (issue 34, defect 4): a write that fails part-way (a disk
/// that fills up, injected here without root) leaves the previous file as it was and nothing
/// beside it; a write that succeeds replaces the file whole, keeping its permissions, and writes
/// through a symlink; devices are written in place.
@Suite struct ReplacedFileTests {
    /// A writer whose `write(2)` fails with `ENOSPC` once `limit` bytes went out, and which
    /// records what the signal guard was told.
    final class FillingDisk: Sendable {
        let limit: Int
        let written = Atomic<Int>(0)
        let told = Mutex<[String?]>([])
        init(limit: Int) { self.limit = limit }

        var writer: ReplacedFile {
            ReplacedFile(
                writeBytes: { [self] fd, bytes, count in
                    let room = limit - written.load(ordering: .relaxed)
                    guard room > 0 else {
                        errno = ENOSPC
                        return -1
                    }
                    let done = Glibc.write(fd, bytes, min(count, room))
                    if done > 0 { written.add(done, ordering: .relaxed) }
                    return done
                },
                guardTemporary: { [self] path in told.withLock { $0.append(path) } })
        }
    }

    static func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    static func write(_ writer: ReplacedFile, _ text: String, to path: String, pieces: Int = 4) -> ReplacedFile.Failure?
    {
        let bytes = Array(text.utf8)
        let size = max(1, bytes.count / pieces)
        return writer.write(to: path) { write in
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + size)
                guard bytes[start..<end].withUnsafeBytes({ write($0) }) else { return false }
                start = end
            }
            return true
        }
    }

    @Test func failedWriteKeepsThePreviousFile() throws {
        let folder = try TemporaryFolders.make("replaced-file")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/audit.json"
        try "{\"previous\": true}\n".write(toFile: path, atomically: false, encoding: .utf8)
        let disk = FillingDisk(limit: 24 << 10)
        let report = String(repeating: "{\"binary\": \"/usr/bin/x\"},\n", count: 4000)  // ~100 KiB
        let failure = Self.write(disk.writer, report, to: path)
        #expect(failure == .system(ENOSPC))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"previous\": true}\n")
        #expect(try Self.names(in: folder) == ["audit.json"], "a partial or temporary file was left")
        // The guard was told the temporary file, then that it is gone.
        let told = disk.told.withLock { $0 }
        #expect(told.count == 2 && told.last == .some(nil), "\(told)")
        #expect(told.first??.hasPrefix(folder + "/.premain-output-") == true, "\(told)")

        // A target not there before stays absent.
        let fresh = folder + "/model.json"
        #expect(Self.write(FillingDisk(limit: 0).writer, "{}\n", to: fresh) == .system(ENOSPC))
        #expect(try Self.names(in: folder) == ["audit.json"])
    }

    @Test func contentThatCannotBeMadeKeepsThePreviousFile() throws {
        struct Unencodable: Error {}
        let folder = try TemporaryFolders.make("replaced-file-throws")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/report.json"
        try "previous\n".write(toFile: path, atomically: false, encoding: .utf8)
        let failure = ReplacedFile().write(to: path) { write in
            _ = Array("half a report".utf8).withUnsafeBytes { write($0) }
            throw Unencodable()
        }
        #expect(failure == .content("Unencodable()"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "previous\n")
        #expect(try Self.names(in: folder) == ["report.json"])
    }

    @Test func writtenFileReplacesTheOldWholeKeepingItsModeAndLinks() throws {
        let folder = try TemporaryFolders.make("replaced-file-ok")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/report.txt"
        try "an older and longer report\n".write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o600)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.txt", withDestinationPath: "report.txt")
        #expect(Self.write(ReplacedFile(), "new\n", to: folder + "/link.txt") == nil)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(LocalFiles.linkStatus(folder + "/link.txt").map { $0.st_mode & S_IFMT } == S_IFLNK)
        #expect(LocalFiles.status(path).map { $0.st_mode & 0o777 } == 0o600)
        #expect(try Self.names(in: folder) == ["link.txt", "report.txt"])
        // A device is written in place, never renamed over.
        #expect(Self.write(ReplacedFile(), "gone\n", to: "/dev/null") == nil)
        #expect(LocalFiles.kind("/dev/null") == .other)
        #expect(Self.write(ReplacedFile(), "full\n", to: "/dev/full") == .system(ENOSPC))
    }

    @Test func fileIdentityTellsOneFileUnderTwoNames() throws {
        let folder = try TemporaryFolders.make("file-identity")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "x".write(toFile: folder + "/a", atomically: false, encoding: .utf8)
        try FileManager.default.linkItem(atPath: folder + "/a", toPath: folder + "/hard")
        try FileManager.default.createSymbolicLink(atPath: folder + "/soft", withDestinationPath: "a")
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: false)
        #expect(FileIdentity(folder + "/a") == FileIdentity(folder + "/hard"))
        #expect(FileIdentity(folder + "/a") == FileIdentity(folder + "/soft"))
        #expect(FileIdentity(folder + "/a") == FileIdentity(folder + "/sub/../a"))
        // Not there yet: the folder and the name.
        #expect(FileIdentity(folder + "/new") == FileIdentity(folder + "/sub/../new"))
        #expect(FileIdentity(folder + "/new") == FileIdentity(folder + "//./new"))
        #expect(FileIdentity(folder + "/new") != FileIdentity(folder + "/sub/new"))
        #expect(FileIdentity(folder + "/none/x") == FileIdentity(folder + "/none/./x"))
    }
}
