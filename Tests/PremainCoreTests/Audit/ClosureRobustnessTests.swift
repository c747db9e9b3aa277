import ELFKit
import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// Closures through broken or unusual dependencies: garbage and truncated candidates, a
/// dependency cycle, a library needed under two names. Never a trap; ld.so's answer where it
/// has one.
@Suite struct ClosureRobustnessTests {
    static func folder(_ name: String) throws -> String {
        let path = TemporaryFolders.root + "/premain-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// unused-deps finds libunused.so through DT_RUNPATH $ORIGIN; replace it with damaged files.
    @Test func damagedCandidatesNeverTrap() throws {
        let root = try Self.folder("damaged")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.copyItem(atPath: Samples.path("closure/unused/unused-deps"), toPath: root + "/app")
        let good = try Array(Data(contentsOf: URL(fileURLWithPath: Samples.path("closure/unused/libunused.so"))))
        var variants: [[UInt8]] = [
            [], Array("not an ELF file".utf8), Array(good.prefix(64)), Array(good.prefix(700)),
            Array(good.prefix(good.count / 2)),
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<40 {
            var bytes = good
            for _ in 0..<24 {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            variants.append(bytes)
        }
        for bytes in variants {
            try Data(bytes).write(to: URL(fileURLWithPath: root + "/libunused.so"))
            let closure = try ClosureResolver().resolve(path: root + "/app")
            // Either libunused.so is taken (a damaged but readable ELF64 x86-64 file) or missing.
            let found = closure.objects.contains { $0.requestedName == "libunused.so" }
            let missing = closure.missing.contains { $0.name == "libunused.so" }
            #expect(found != missing)
            #expect(closure.objects.contains { $0.soname == "libc.so.6" })
        }
    }

    /// liba.so and libb.so need each other: each is loaded once, and the walk ends.
    @Test func dependencyCycleEnds() throws {
        let root = try Self.folder("cycle")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "int b(void) { return 2; }\n".write(toFile: root + "/b0.c", atomically: true, encoding: .utf8)
        try "int b(void); int a(void) { return b() + 1; }\n".write(
            toFile: root + "/a.c", atomically: true, encoding: .utf8)
        try "int a(void); int b(void) { return 2; } int c(void) { return a(); }\n"
            .write(toFile: root + "/b.c", atomically: true, encoding: .utf8)
        try "int a(void); int main(void) { return a() == 3 ? 0 : 1; }\n"
            .write(toFile: root + "/main.c", atomically: true, encoding: .utf8)
        let steps = [
            ["gcc", "-shared", "-fPIC", root + "/b0.c", "-Wl,-soname,libb.so", "-o", root + "/libb.so"],
            [
                "gcc", "-shared", "-fPIC", root + "/a.c", "-L" + root, "-lb", "-Wl,-soname,liba.so",
                "-Wl,--enable-new-dtags,-rpath,$ORIGIN", "-o", root + "/liba.so",
            ],
            [
                "gcc", "-shared", "-fPIC", root + "/b.c", "-L" + root, "-la", "-Wl,-soname,libb.so",
                "-Wl,--enable-new-dtags,-rpath,$ORIGIN", "-o", root + "/libb.so",
            ],
            [
                "gcc", root + "/main.c", "-L" + root, "-la", "-Wl,-rpath-link," + root,
                "-Wl,--enable-new-dtags,-rpath,$ORIGIN", "-o", root + "/app",
            ],
        ]
        for step in steps {
            let result = try Shell.run(step)
            try #require(result.status == 0, "\(step): \(result.stderr)")
        }
        #expect(try ELFFile(path: root + "/libb.so").neededLibraries.contains("liba.so"))
        let closure = try ClosureResolver().resolve(path: root + "/app")
        #expect(closure.objects.filter { $0.soname == "liba.so" }.count == 1)
        #expect(closure.objects.filter { $0.soname == "libb.so" }.count == 1)
        #expect(closure.missing.isEmpty)
        let libb = try #require(closure.objects.first { $0.soname == "libb.so" })
        #expect(libb.depth == 2)
        #expect(Set(closure.objects.map(\.realPath)) == (try LddOutput.of(root + "/app")).resolved)
    }

    /// Two direct dependencies define the same function: the program's call binds to the first
    /// in load order, so only the second is unused, as `ldd -u` says; a dependency that is
    /// first for one import and second for another is used. The binder passes over imports
    /// no unbound dependency defines, which must not change which one is first.
    @Test func interposedDefinitionUsesOnlyTheFirstDefiner() throws {
        let root = try Self.folder("interpose")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "int shared(void) { return 1; }\n".write(toFile: root + "/first.c", atomically: true, encoding: .utf8)
        try "int shared(void) { return 2; }\n".write(toFile: root + "/second.c", atomically: true, encoding: .utf8)
        try "int shared(void) { return 3; } int own(void) { return 4; }\n"
            .write(toFile: root + "/third.c", atomically: true, encoding: .utf8)
        try "int shared(void); int own(void); int main(void) { return shared() + own() == 5 ? 0 : 1; }\n"
            .write(toFile: root + "/main.c", atomically: true, encoding: .utf8)
        for name in ["first", "second", "third"] {
            let build = try Shell.run([
                "gcc", "-shared", "-fPIC", root + "/\(name).c", "-Wl,-soname,lib\(name).so",
                "-o", root + "/lib\(name).so",
            ])
            try #require(build.status == 0, "\(build.stderr)")
        }
        let link = try Shell.run([
            "gcc", root + "/main.c", "-Wl,--no-as-needed", "-L" + root, "-lfirst", "-lsecond",
            "-lthird", "-Wl,--enable-new-dtags,-rpath,$ORIGIN", "-o", root + "/app",
        ])
        try #require(link.status == 0, "\(link.stderr)")
        let closure = try ClosureResolver().resolve(path: root + "/app")
        #expect(closure.unusedNeeded == ["libsecond.so"])
        let ldd = try Shell.run(["ldd", "-u", root + "/app"])
        let reported = ldd.stdout.split(separator: "\n").dropFirst()
            .map { URL(fileURLWithPath: $0.trimmingCharacters(in: .whitespaces)).lastPathComponent }
        #expect(reported == ["libsecond.so"])
    }

    /// A library reached under a second name (a symlink) is the same object (device + inode).
    @Test func sameFileUnderTwoNamesIsOneObject() throws {
        let root = try Self.folder("twonames")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "int x(void) { return 1; }\n".write(toFile: root + "/x.c", atomically: true, encoding: .utf8)
        try "int x(void); int main(void) { return x() - 1; }\n".write(
            toFile: root + "/main.c", atomically: true, encoding: .utf8)
        // libn.so has no SONAME: linked by path it is needed by path, linked through the
        // symlink libalias.so it is needed as "libalias.so".
        let build = try Shell.run(["gcc", "-shared", "-fPIC", root + "/x.c", "-o", root + "/libn.so"])
        try #require(build.status == 0, "\(build.stderr)")
        try FileManager.default.createSymbolicLink(atPath: root + "/libalias.so", withDestinationPath: "libn.so")
        let link = try Shell.run([
            "gcc", root + "/main.c", "-Wl,--no-as-needed", root + "/libn.so", "-L" + root, "-lalias",
            "-Wl,--enable-new-dtags,-rpath,$ORIGIN", "-o", root + "/app",
        ])
        try #require(link.status == 0, "\(link.stderr)")
        let needed = try ELFFile(path: root + "/app").neededLibraries
        #expect(needed.contains(root + "/libn.so") && needed.contains("libalias.so"), "\(needed)")
        let closure = try ClosureResolver().resolve(path: root + "/app")
        let copies = closure.objects.filter { $0.realPath.hasSuffix("/libn.so") }
        #expect(copies.count == 1)
        #expect(copies.first?.foundVia == .directPath)
        #expect(closure.missing.isEmpty)
        #expect(Set(closure.objects.map(\.realPath)) == (try LddOutput.of(root + "/app")).resolved)
    }

    /// DF_1_NODEFLIB: neither the default directories nor cache entries inside them serve the
    /// program's own dependencies; LD_LIBRARY_PATH still does.
    @Test func noDefaultLibSkipsTheSystemDirectories() throws {
        let root = try Self.folder("nodeflib")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "int main(void) { return 0; }\n".write(toFile: root + "/main.c", atomically: true, encoding: .utf8)
        let build = try Shell.run(["gcc", root + "/main.c", "-Wl,-z,nodefaultlib", "-o", root + "/app"])
        try #require(build.status == 0, "\(build.stderr)")
        #expect(try ELFFile(path: root + "/app").noDefaultLib)
        let closure = try ClosureResolver().resolve(path: root + "/app")
        #expect(closure.missing.map(\.name) == ["libc.so.6"])
        #expect(closure.missing.first?.searched == ["/etc/ld.so.cache"])
        #expect(try LddOutput.of(root + "/app").notFound == ["libc.so.6"])
        let withPath = try ClosureResolver(options: ClosureOptions(libraryPath: ["/lib/x86_64-linux-gnu"]))
            .resolve(path: root + "/app")
        #expect(withPath.missing.isEmpty)
        #expect(withPath.objects.first { $0.soname == "libc.so.6" }?.foundVia == .ldLibraryPath)
    }
}
