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

/// The closure samples (samples/closure/*): search order, $ORIGIN, missing, unused and
/// wrong-class libraries, checked against the facts in samples/README.md and against `ldd`.
@Suite struct ClosureSampleTests {
    func resolve(_ relative: String, libraryPath: [String] = [], sysroot: String? = nil) throws -> DependencyClosure {
        try ClosureResolver(options: ClosureOptions(sysroot: sysroot, libraryPath: libraryPath))
            .resolve(path: Samples.path(relative))
    }

    func object(_ closure: DependencyClosure, soname: String) throws -> ClosureObject {
        try #require(closure.objects.first { $0.soname == soname }, "\(soname) not in \(closure.objects.map(\.path))")
    }

    @Test func rpathBeatsLibraryPath() throws {
        let root = try Samples.path("closure/rpath-vs-runpath")
        for libraryPath in [[], [root + "/b"]] {
            let which = try object(
                resolve("closure/rpath-vs-runpath/use-rpath", libraryPath: libraryPath),
                soname: "libwhich.so")
            #expect(which.path == root + "/a/libwhich.so")
            #expect(which.foundVia == .rpath)
            #expect(which.searchDirectory == root + "/a")
        }
    }

    @Test func libraryPathBeatsRunpath() throws {
        let root = try Samples.path("closure/rpath-vs-runpath")
        let plain = try object(resolve("closure/rpath-vs-runpath/use-runpath"), soname: "libwhich.so")
        #expect(plain.path == root + "/a/libwhich.so")
        #expect(plain.foundVia == .runpath)
        let overridden = try object(
            resolve("closure/rpath-vs-runpath/use-runpath", libraryPath: [root + "/b"]),
            soname: "libwhich.so")
        #expect(overridden.path == root + "/b/libwhich.so")
        #expect(overridden.foundVia == .ldLibraryPath)
        // ld.so agrees.
        let ldd = try LddOutput.of(root + "/use-runpath", environment: ["LD_LIBRARY_PATH": root + "/b"])
        #expect(ldd.resolved.contains(LddOutput.realPath(root + "/b/libwhich.so")))
    }

    /// DT_RPATH of the executable serves its dependencies' dependencies; DT_RUNPATH does not.
    @Test func rpathOfTheLoaderChainReachesIndirectDependencies() throws {
        let root = try Samples.path("closure/rpath-vs-runpath/indirect")
        let closure = try resolve("closure/rpath-vs-runpath/indirect/use-indirect")
        let leaf = try object(closure, soname: "libleaf.so")
        #expect(leaf.path == root + "/leaf/libleaf.so")
        #expect(leaf.foundVia == .rpath)
        #expect(leaf.depth == 2)
        #expect(leaf.neededBy == root + "/mid/libmid.so")
        #expect(closure.missing.isEmpty)

        let runpath = try resolve("closure/rpath-vs-runpath/indirect/use-indirect-runpath")
        #expect(runpath.objects.contains { $0.soname == "libmid.so" && $0.foundVia == .runpath })
        let missing = try #require(runpath.missing.first)
        #expect(runpath.missing.count == 1)
        #expect(missing.name == "libleaf.so")
        #expect(missing.neededBy == root + "/mid/libmid.so")
        #expect(!missing.searched.contains(root + "/leaf"), "the executable's RUNPATH must not serve libmid.so")
        #expect(missing.searched.contains("/etc/ld.so.cache"))
        #expect(missing.searched.contains("/usr/lib/x86_64-linux-gnu"))
        let ldd = try LddOutput.of(root + "/use-indirect-runpath")
        #expect(ldd.notFound == ["libleaf.so"])
    }

    @Test func originExpandsToTheExecutableDirectory() throws {
        let root = try Samples.path("closure/origin")
        let lib = try object(resolve("closure/origin/bin/origin-app"), soname: "liborigin.so")
        #expect(lib.path == root + "/bin/../lib/liborigin.so")
        #expect(lib.realPath == LddOutput.realPath(root + "/lib/liborigin.so"))
        #expect(lib.foundVia == .runpath)
        #expect(!lib.system)
    }

    @Test func missingLibraryListsThePlacesSearched() throws {
        let root = try Samples.path("closure/missing")
        let closure = try resolve("closure/missing/needs-missing")
        #expect(closure.missing.map(\.name) == ["libdoesnotexist.so"])
        let missing = try #require(closure.missing.first)
        #expect(missing.neededBy == root + "/needs-missing")
        #expect(missing.searched.first == LddOutput.realPath(root))  // DT_RUNPATH $ORIGIN
        #expect(
            missing.searched.suffix(5) == [
                "/etc/ld.so.cache", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                "/lib", "/usr/lib",
            ])
        // The rest of the closure is still resolved.
        #expect(closure.objects.contains { $0.soname == "libc.so.6" })
        #expect(try LddOutput.of(root + "/needs-missing").notFound == ["libdoesnotexist.so"])
    }

    @Test func unusedDependenciesMatchLddU() throws {
        let closure = try resolve("closure/unused/unused-deps")
        #expect(closure.unusedNeeded == ["libunused.so", "libm.so.6"])
        let ldd = try Shell.run(["ldd", "-u", Samples.path("closure/unused/unused-deps")])
        let reported = ldd.stdout.split(separator: "\n").dropFirst()
            .map { URL(fileURLWithPath: $0.trimmingCharacters(in: .whitespaces)).lastPathComponent }
        #expect(Set(reported) == ["libunused.so", "libm.so.6"])
        // A program that uses all its dependencies has none unused.
        #expect(try resolve("closure/origin/bin/origin-app").unusedNeeded.isEmpty)
    }

    @Test func wrongClassCandidateIsSkipped() throws {
        let root = try Samples.path("closure/wrong-class")
        let closure = try resolve("closure/wrong-class/wc-app")
        let lib = try object(closure, soname: "libwc.so")
        #expect(lib.path == root + "/lib64/libwc.so")
        #expect(closure.missing.isEmpty)
        #expect(try ELFFile(path: root + "/lib32/libwc.so").elfClass == .elf32)
    }

    /// With only the ELF32 copy on the search path, the library is missing and the rejected
    /// candidate is named.
    @Test func onlyWrongClassCandidateIsMissing() throws {
        let source = try Samples.path("closure/wrong-class")
        let folder = TemporaryFolders.root + "/premain-wc-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder + "/lib32", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: source + "/wc-app", toPath: folder + "/wc-app")
        try FileManager.default.copyItem(atPath: source + "/lib32/libwc.so", toPath: folder + "/lib32/libwc.so")
        let closure = try ClosureResolver().resolve(path: folder + "/wc-app")
        let missing = try #require(closure.missing.first)
        #expect(missing.name == "libwc.so")
        #expect(missing.wrongClass == [folder + "/lib32/libwc.so"])
        #expect(try LddOutput.of(folder + "/wc-app").notFound == ["libwc.so"])
    }

    /// Every runnable closure sample resolves like ld.so.
    @Test(arguments: [
        "closure/rpath-vs-runpath/use-rpath", "closure/rpath-vs-runpath/use-runpath",
        "closure/rpath-vs-runpath/indirect/use-indirect", "closure/origin/bin/origin-app",
        "closure/unused/unused-deps", "closure/wrong-class/wc-app", "many-deps/many-deps",
    ])
    func sampleEqualsLdd(_ relative: String) throws {
        let closure = try resolve(relative)
        let ldd = try LddOutput.of(Samples.path(relative))
        #expect(Set(closure.objects.map(\.realPath)) == ldd.resolved)
    }

    /// One resolver serves every closure of a run and shares what it learns per object (its
    /// facts, its searches, its symbol look-up). libmid.so is in both indirect programs' closures,
    /// but its DT_NEEDED libleaf.so is found through the executable's DT_RPATH in one and is
    /// missing under the other's DT_RUNPATH; the unused-deps program binds to libm and libc that
    /// the others bind to as well. Whatever order they come in, each closure is what a resolver
    /// of its own gives.
    @Test func closuresSharingAnObjectKeepTheirOwnAnswers() throws {
        let programs = [
            "closure/rpath-vs-runpath/indirect/use-indirect",
            "closure/rpath-vs-runpath/indirect/use-indirect-runpath",
            "closure/unused/unused-deps", "closure/origin/bin/origin-app",
        ]
        var alone: [String: DependencyClosure] = [:]
        for program in programs { alone[program] = try resolve(program) }
        let leaf = try Samples.path("closure/rpath-vs-runpath/indirect/leaf/libleaf.so")
        #expect(alone[programs[0]]?.objects.contains { $0.path == leaf } == true)
        #expect(alone[programs[1]]?.missing.map(\.name) == ["libleaf.so"])
        #expect(alone[programs[2]]?.unusedNeeded == ["libunused.so", "libm.so.6"])
        for order in [programs, programs.reversed(), [programs[1], programs[0], programs[3], programs[2]]] {
            let shared = ClosureResolver()
            for program in order {
                #expect(try shared.resolve(path: Samples.path(program)) == alone[program], "\(program) in \(order)")
            }
        }
    }

    /// In a sysroot, the interpreter and the default directories are read inside it.
    @Test func sysrootIsSearchedInsteadOfTheRoot() throws {
        let root = TemporaryFolders.root + "/premain-sysroot-\(getpid())"
        let manager = FileManager.default
        try? manager.removeItem(atPath: root)
        defer { try? manager.removeItem(atPath: root) }
        for folder in ["/bin", "/lib64", "/lib/x86_64-linux-gnu"] {
            try manager.createDirectory(atPath: root + folder, withIntermediateDirectories: true)
        }
        try manager.copyItem(atPath: Samples.path("c-hello/c-hello"), toPath: root + "/bin/c-hello")
        try manager.copyItem(
            atPath: "/lib/x86_64-linux-gnu/libc.so.6", toPath: root + "/lib/x86_64-linux-gnu/libc.so.6")
        try manager.copyItem(atPath: "/lib64/ld-linux-x86-64.so.2", toPath: root + "/lib64/ld-linux-x86-64.so.2")
        let closure = try ClosureResolver(options: ClosureOptions(sysroot: root)).resolve(path: root + "/bin/c-hello")
        #expect(closure.missing.isEmpty)
        let libc = try object(closure, soname: "libc.so.6")
        #expect(libc.path == root + "/lib/x86_64-linux-gnu/libc.so.6")
        #expect(libc.foundVia == .defaultPath)  // no ld.so.cache inside the sysroot
        let interpreter = try #require(closure.objects.first { $0.foundVia == .interpreter })
        #expect(interpreter.path == root + "/lib64/ld-linux-x86-64.so.2")
        #expect(closure.objects.count == 2, "libc's DT_NEEDED ld-linux-x86-64.so.2 is the interpreter")
    }
}
