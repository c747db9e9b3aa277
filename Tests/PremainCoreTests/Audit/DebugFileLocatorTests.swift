import ELFKit
import Foundation
import PremainSystem
import PremainTestSupport
import Testing

@testable import PremainAudit

/// The debug file search from memos (`DebugFileLocator.existingCandidates`, `debugFile`)
/// against its plain statement (`candidates(for:inExistingFolders:)`).
@Suite struct DebugFileLocatorTests {
    /// What `debugFile(for:)` gave before the memos: the file itself with DWARF, else the first
    /// readable candidate of the plain list.
    static func reference(_ locator: DebugFileLocator, _ file: ELFFile) -> String? {
        if file.section(named: ".debug_info") != nil { return file.path }
        return locator.candidates(for: file, inExistingFolders: true).first(where: LocalFiles.isReadableFile)
    }

    static func expectSameSearch(_ locator: DebugFileLocator, _ file: ELFFile) {
        #expect(locator.existingCandidates(for: file) == locator.candidates(for: file, inExistingFolders: true))
        #expect(locator.debugFile(for: file) == reference(locator, file))
    }

    @Test func systemFilesAreSearchedAsThePlainListSays() throws {
        let locator = DebugFileLocator()
        var paths = ["/usr/bin/ls", "/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6"]
        if case .success(let names) = LocalFiles.entries(of: "/usr/lib/x86_64-linux-gnu") {
            paths += names.sorted().prefix(60).map { "/usr/lib/x86_64-linux-gnu/" + $0 }
        }
        for path in paths {
            guard let file = try? ELFFile(path: path) else { continue }
            // Twice: the second time from the memos the first made.
            Self.expectSameSearch(locator, file)
            Self.expectSameSearch(locator, file)
        }
    }

    /// Debuglink folders as given and resolved through a symlinked folder, with the debug file
    /// in each place in turn, and the file opened through a symlink of its own.
    @Test func debugLinksThroughSymlinksAreSearchedAsThePlainListSays() throws {
        let root = try TemporaryFolders.make("debug-locator")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: root + "/real")
        let library = root + "/real/libinit.so"
        try FileManager.default.copyItem(atPath: try Samples.path("cxx-static-init/libinit.so"), toPath: library)
        try FileManager.default.createSymbolicLink(atPath: root + "/real/liblink.so", withDestinationPath: library)
        try "debug".write(toFile: root + "/libinit.debug", atomically: true, encoding: .utf8)
        #expect(
            try Shell.run(["objcopy", "--strip-debug", "--add-gnu-debuglink=" + root + "/libinit.debug", library])
                .status == 0)
        let debug = root + "/debug"
        let id = try #require(try ELFFile(path: library).buildID)
        let places = [
            "", root + "/real/.debug", debug, debug + root + "/alias", debug + root + "/real",
            debug + "/.build-id/" + id.prefix(2),
        ]
        for place in places {
            if !place.isEmpty {
                try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
                let name = place.hasSuffix("/" + id.prefix(2)) ? id.dropFirst(2) + ".debug" : "libinit.debug"
                try "debug".write(toFile: place + "/" + name, atomically: true, encoding: .utf8)
            }
            // A new locator for each layout, as each audit run has its own.
            let locator = DebugFileLocator(extraDirectories: [debug])
            for path in [library, root + "/alias/libinit.so", root + "/real/liblink.so", root + "/alias/liblink.so"] {
                let file = try ELFFile(path: path)
                Self.expectSameSearch(locator, file)
                Self.expectSameSearch(locator, file)
            }
        }
    }

    @Test func resolvingThroughTheFolderIsWhatRealPathDoes() throws {
        let root = try TemporaryFolders.make("resolves-through-folder")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "x".write(toFile: root + "/file", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/file")
        for path in [
            root + "/file", root + "/link", root + "/missing", root + "/.", root + "/..", root + "/", "/etc",
            "relative", root + "/...", root + "/.x",
        ] {
            var usedFolder = false
            _ = LocalFiles.realPath(path) { folder in
                usedFolder = true
                return folder
            }
            #expect(LocalFiles.resolvesThroughFolder(path) == usedFolder, "\(path)")
        }
    }
}
