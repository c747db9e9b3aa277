import Foundation
import LosslessText
import PremainModel
import PremainRender
import PremainTestSupport
import Testing

@testable import PremainAudit

/// Closures of odd but valid inputs, as `ld.so` resolves them: `DT_NEEDED` names compared and
/// opened as bytes (`strcmp`, `open`), and many missing search directories remembered as
/// missing (`r_search_path_status`).
@Suite struct ClosureLoaderParityTests {
    static func folder(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "premain-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Runs `script` with bash in `folder` (`$1`): names with raw bytes are written as `$'\xff'`.
    static func bash(_ script: String, in folder: String) throws {
        let result = try Shell.run(["bash", "-c", "set -e; cd \"$1\"; " + script, "bash", folder])
        try #require(result.status == 0, "\(script): \(result.stderr)")
    }

    // 5. A DT_NEEDED name with a byte that is not UTF-8 was reported missing.
    @Test func neededNameWithNonUTF8ByteIsResolvedAsBytes() throws {
        let root = try Self.folder("needed-bytes")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "int x(void) { return 1; }\n".write(toFile: root + "/x.c", atomically: true, encoding: .utf8)
        try "int c1(void) { return 1; }\n".write(toFile: root + "/c1.c", atomically: true, encoding: .utf8)
        try "int c2(void) { return 2; }\n".write(toFile: root + "/c2.c", atomically: true, encoding: .utf8)
        try "int x(void); int c1(void); int c2(void); int main(void) { return x() + c1() + c2() == 4 ? 0 : 1; }\n"
            .write(toFile: root + "/main.c", atomically: true, encoding: .utf8)
        // libx\xffy.so; and libcafé.so twice: precomposed (C3 A9) and decomposed (65 CC 81).
        try Self.bash(
            """
            gcc -shared -fPIC x.c -Wl,-soname,libx$'\\xff'y.so -o libx$'\\xff'y.so
            gcc -shared -fPIC c1.c -Wl,-soname,libcaf$'\\xc3\\xa9'.so -o libcaf$'\\xc3\\xa9'.so
            gcc -shared -fPIC c2.c -Wl,-soname,libcafe$'\\xcc\\x81'.so -o libcafe$'\\xcc\\x81'.so
            gcc main.c -Wl,--no-as-needed ./libx$'\\xff'y.so ./libcaf$'\\xc3\\xa9'.so ./libcafe$'\\xcc\\x81'.so \\
                -Wl,--enable-new-dtags,-rpath,'$ORIGIN' -o app
            ./app
            """, in: root)

        let closure = try ClosureResolver().resolve(path: root + "/app")
        #expect(closure.missing.isEmpty, "\(closure.missing.map(\.name))")
        let names = [[0x6C, 0x69, 0x62, 0x78, 0xFF, 0x79], Array("libcaf\u{E9}".utf8), Array("libcafe\u{301}".utf8)]
            .map { LosslessUTF8.string($0 + Array(".so".utf8)) }
        for name in names {
            let found = closure.objects.filter { ByteKey($0.soname ?? "") == ByteKey(name) }
            #expect(found.count == 1, "\(TextSafety.display(name)) loaded once")
            #expect(
                found.first.map { LosslessUTF8.bytes($0.path) } == Array((root + "/").utf8) + LosslessUTF8.bytes(name))
            #expect(found.first?.foundVia == .runpath)
        }
    }

    // 8. Many missing LD_LIBRARY_PATH folders times many DT_NEEDED was quadratic.
    @Test func missingLibraryPathFolderIsProbedOncePerRun() throws {
        let root = try Self.folder("missing-llp")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "int f(void) { return 0; }\n".write(toFile: root + "/f.c", atomically: true, encoding: .utf8)
        try "int main(void) { return 0; }\n".write(toFile: root + "/main.c", atomically: true, encoding: .utf8)
        // Eight libraries found through RUNPATH, one (libgone.so) missing.
        let names = (1...8).map { "lib\($0)" } + ["libgone"]
        try Self.bash(
            names.map { "gcc -shared -fPIC f.c -Wl,-soname,\($0).so -o \($0).so\n" }.joined() + """
                gcc main.c -Wl,--no-as-needed -L. \(names.map { "-l" + $0.dropFirst(3) }.joined(separator: " ")) \\
                    -Wl,--enable-new-dtags,-rpath,'$ORIGIN' -o app
                rm libgone.so
                """, in: root)
        let missingFolders = (1...50).map { root + "/missing/\($0)" }

        let plain = ClosureResolver()
        let without = try plain.resolve(path: root + "/app")
        let resolver = ClosureResolver(options: ClosureOptions(libraryPath: missingFolders))
        let with = try resolver.resolve(path: root + "/app")

        // Each missing folder is looked at once, whatever the number of names, and none of its
        // glibc-hwcaps or legacy subdirectories.
        #expect(
            resolver.folderProbes.load(ordering: .relaxed)
                == plain.folderProbes.load(ordering: .relaxed) + missingFolders.count)
        #expect(missingFolders.allSatisfy { resolver.directories.value(ByteKey($0)) == false })
        let subdirectories = LoaderPlatform.host?.searchSubdirectories ?? []
        #expect(!subdirectories.isEmpty)
        #expect(
            !missingFolders.contains { folder in
                subdirectories.contains { resolver.directories.value(ByteKey(folder + "/" + $0)) != nil }
            })
        // The closure is the same, and the missing library lists every place searched, in order.
        #expect(with.objects == without.objects)
        #expect(with.objects.filter { $0.foundVia == .runpath }.count == 8)
        let gone = try #require(with.missing.first { $0.name == "libgone.so" })
        let goneWithout = try #require(without.missing.first { $0.name == "libgone.so" })
        #expect(gone.searched == missingFolders + goneWithout.searched)
        #expect(goneWithout.searched.first == root)
        #expect(with.missing.count == 1)
    }
}
