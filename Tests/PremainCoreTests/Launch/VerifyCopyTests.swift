import ELFKit
import Foundation
import PremainLaunch
import PremainModel
import PremainTestSupport
import Synchronization
import Testing

/// Issue 34, defect 7: `check --verify`'s copies on ordinary programs. A program built with
/// DT_RPATH `$ORIGIN/lib`, in a folder whose name holds ':', named through a symlink from
/// another folder: both copies keep DT_RPATH (patchelf alone writes DT_RUNPATH, which the
/// libraries do not inherit) and the loader finds every library of each copy. A library given
/// to verify is refused, never launched. The launches are scripted (no time is asserted); the
/// loader's look-up is real (`LD_TRACE_LOADED_OBJECTS`).
@Suite(.serialized)
struct VerifyCopyTests {
    /// What each copy was when the scripted launcher was asked to run it.
    final class Seen: Sendable {
        let copies = Mutex<[String: (rpath: [String], runpath: [String], trace: String)]>([:])
    }

    static func launcher(_ seen: Seen) -> ScriptedLauncher {
        ScriptedLauncher(answering: { request in
            let side = request.executablePath.contains("/base/") ? "base" : "head"
            if let file = try? ELFFile(path: request.executablePath),
                let trace = try? Shell.run(
                    [], environment: ["LD_TRACE_LOADED_OBJECTS": "1"], executable: request.executablePath)
            {
                seen.copies.withLock { $0[side] = (file.rpath, file.runpath, trace.stdout + trace.stderr) }
            }
            return CompareTests.launch(mainMs: side == "base" ? 5.3 : 5.0, cpuMs: 4)
        })
    }

    static func verifier(_ launcher: ScriptedLauncher) -> SavingVerifier {
        var options = SavingVerifier.defaultOptions
        options.warmup = 0
        options.settings.maxSeconds = 1000
        options.settings.minRuns = 4
        options.settings.maxRuns = 8
        return SavingVerifier(launcher: launcher, options: options, temporaryRoot: NSTemporaryDirectory())
    }

    /// `FOLDER/we:ird/app` (DT_RPATH `$ORIGIN/lib`, needing libused.so and libunused.so from
    /// `we:ird/lib`) and `FOLDER/links/app`, a symlink to it.
    static func program() throws -> (folder: String, link: String) {
        let folder = try TemporaryFolders.make("verify-rpath")
        let weird = folder + "/we:ird"
        try FileManager.default.createDirectory(atPath: weird + "/lib", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/links", withIntermediateDirectories: true)
        try "int used(void) { return 1; }\n".write(toFile: folder + "/used.c", atomically: true, encoding: .utf8)
        try "int unused_fn(void) { return 2; }\n".write(toFile: folder + "/unused.c", atomically: true, encoding: .utf8)
        try "int used(void);\nint main(void) { return used() - 1; }\n".write(
            toFile: folder + "/app.c", atomically: true, encoding: .utf8)
        for (source, library) in [("used.c", "libused.so"), ("unused.c", "libunused.so")] {
            let built = try Shell.run([
                "gcc", "-shared", "-fPIC", folder + "/" + source, "-o", weird + "/lib/" + library,
            ])
            try #require(built.status == 0, "\(built.stderr)")
        }
        let app = try Shell.run([
            "gcc", folder + "/app.c", "-o", weird + "/app", "-L" + weird + "/lib", "-Wl,--no-as-needed", "-lused",
            "-lunused", "-Wl,--disable-new-dtags,-rpath,$ORIGIN/lib",
        ])
        try #require(app.status == 0, "\(app.stderr)")
        try FileManager.default.createSymbolicLink(atPath: folder + "/links/app", withDestinationPath: weird + "/app")
        return (folder, folder + "/links/app")
    }

    @Test func verifyKeepsDTRPATHAndFindsOriginThroughAColonFolderAndASymlink() throws {
        let (_, link) = try Self.program()
        let original = try ELFFile(path: link)
        try #require(original.rpath == ["$ORIGIN/lib"] && original.runpath.isEmpty)
        let seen = Seen()
        let result = Self.verifier(Self.launcher(seen)).verify(
            program: link, removing: ["libunused.so"], arguments: [], environment: [], estimateMs: 0.1)
        #expect(result.error == nil, "\(result.error ?? "")")
        let copies = seen.copies.withLock { $0 }
        for side in ["base", "head"] {
            let copy = try #require(copies[side], "\(side) was not launched")
            #expect(copy.runpath.isEmpty, "\(side): DT_RUNPATH \(copy.runpath)")
            #expect(copy.rpath.count == 1 && copy.rpath[0].hasPrefix("$ORIGIN/"), "\(side): DT_RPATH \(copy.rpath)")
            #expect(
                copy.trace.contains("libused.so => ") && !copy.trace.contains("not found"), "\(side): \(copy.trace)")
        }
        #expect(copies["base"]?.trace.contains("libunused.so => ") == true)
        #expect(copies["head"]?.trace.contains("libunused.so") == false)
        #expect(abs((result.savingMs ?? 0) - 0.3) < 1e-6)
    }

    @Test func verifyRefusesALibraryInsteadOfLaunchingIt() throws {
        let (folder, _) = try Self.program()
        let launched = Mutex(0)
        let launcher = ScriptedLauncher(answering: { _ in
            launched.withLock { $0 += 1 }
            return CompareTests.launch(mainMs: 5, cpuMs: 4)
        })
        let result = Self.verifier(launcher).verify(
            program: folder + "/we:ird/lib/libused.so", removing: ["libc.so.6"], arguments: [], environment: [],
            estimateMs: nil)
        #expect(result.error?.hasPrefix("libused.so is a library, not a program") == true, "\(result.error ?? "")")
        #expect(launched.withLock { $0 } == 0)
    }
}
