import Foundation
import PremainTestSupport
import Testing

/// `premain audit` with closures: the JSON contract, the closure options and folder mode.
@Suite struct ClosureCLITests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// The closure of `path` as `ldd` (an independent reader) lists it: how many objects (the
    /// interpreter counted, the vDSO not) and the file names of the unused direct dependencies
    /// (`ldd -u`), read at run time: they are the toolchain's facts, not the test's.
    func lddFacts(_ path: String) throws -> (objects: Int, unused: [String]) {
        let listing = try Shell.run(["ldd", path]).stdout.split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        let objects = listing.filter { $0.contains(" => /") || $0.hasPrefix("/") }.count
        let unused = try Shell.run(["ldd", "-u", path]).stdout.split(separator: "\n").dropFirst()
            .map { String($0.trimmingCharacters(in: .whitespaces).split(separator: "/").last ?? "") }
        return (objects, unused)
    }

    @Test func jsonCarriesTheClosureContract() throws {
        let frontend = "/opt/swift/usr/bin/swift-frontend"
        let result = try CLI.run(["audit", "--format", "json", frontend])
        #expect(result.status == 0, "\(result.stderr)")
        let ldd = try lddFacts(frontend)
        let binary = try #require((try json(result.stdout)["binaries"] as? [[String: Any]])?.first)
        #expect(binary["unusedNeeded"] as? [String] == ldd.unused)
        let closure = try #require(binary["closure"] as? [String: Any])
        let objects = try #require(closure["objects"] as? [[String: Any]])
        #expect(objects.count == ldd.objects)
        for object in objects {
            for key in ["path", "foundVia", "depth", "neededBy", "realPath"] { #expect(object[key] != nil, "\(key)") }
        }
        #expect(
            objects.contains { $0["soname"] as? String == "libswiftCore.so" && $0["foundVia"] as? String == "runpath" })
        #expect(objects.contains { $0["foundVia"] as? String == "interpreter" })
        #expect((closure["missing"] as? [Any])?.isEmpty == true)
        let totals = try #require(closure["totals"] as? [String: Any])
        #expect(totals["objects"] as? Int == ldd.objects)
        for key in ["initializers", "exported", "lookups"] { #expect(totals[key] is Int, "\(key)") }
        let relocations = try #require(totals["relocations"] as? [String: Any])
        for key in ["relative", "symbolic", "plt", "copy", "irelative", "tls", "total"] {
            #expect(relocations[key] is Int, "\(key)")
        }
    }

    @Test func noClosureLeavesItOut() throws {
        let result = try CLI.run(["audit", "--no-closure", "--format", "json", "/bin/ls"])
        #expect(result.status == 0)
        let binary = try #require((try json(result.stdout)["binaries"] as? [[String: Any]])?.first)
        #expect(binary["closure"] == nil)
        #expect(binary["unusedNeeded"] == nil)
    }

    @Test func libraryPathIsSearchedBeforeTheCache() throws {
        let folder = TemporaryFolders.root + "/premain-llp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: "/lib/x86_64-linux-gnu/libc.so.6", toPath: folder + "/libc.so.6")
        let result = try CLI.run(["audit", "--format", "json", "--library-path", folder, "/bin/ls"])
        #expect(result.status == 0)
        let binary = try #require((try json(result.stdout)["binaries"] as? [[String: Any]])?.first)
        let objects = try #require((binary["closure"] as? [String: Any])?["objects"] as? [[String: Any]])
        let libc = try #require(objects.first { $0["soname"] as? String == "libc.so.6" })
        #expect(libc["path"] as? String == folder + "/libc.so.6")
        #expect(libc["foundVia"] as? String == "ldLibraryPath")
        // Without the option, premain's own environment does not count.
        let plain = try CLI.run(["audit", "--format", "json", "/bin/ls"], environment: ["LD_LIBRARY_PATH": folder])
        #expect(!plain.stdout.contains(folder + "/libc.so.6"))
        let honored = try CLI.run(
            ["audit", "--format", "json", "--honor-env", "/bin/ls"],
            environment: ["LD_LIBRARY_PATH": folder])
        #expect(honored.stdout.contains(folder + "/libc.so.6"))
    }

    @Test func badClosureOptionsAreUsageErrors() throws {
        for arguments in [
            ["audit", "--sysroot", "/nonexistent/root", "/bin/ls"], ["audit", "--depth", "x", "/bin/ls"],
            ["audit", "--closure", "--no-closure", "/bin/ls"], ["audit", "--jobs", "0", "/bin/ls"],
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.hasPrefix("Error: "), "\(arguments)")
        }
    }

    @Test func textShowsTheTreeAndTotals() throws {
        let result = try CLI.run(["audit", "/bin/ls"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Load closure ("))
        #expect(result.stdout.contains("└── ld-linux-x86-64.so.2 [interpreter] /lib64/ld-linux-x86-64.so.2"))
        #expect(result.stdout.contains("system libraries folded (--all shows them): libselinux.so.1, libc.so.6"))
        #expect(result.stdout.contains("Closure totals (program + "))
        let all = try CLI.run(["audit", "--all", "/bin/ls"])
        #expect(all.stdout.contains("├── libselinux.so.1 [ld.so.conf] /lib/x86_64-linux-gnu/libselinux.so.1"))
        #expect(all.stdout.contains("│   └── libpcre2-8.so.0 [ld.so.conf]"))
        let shallow = try CLI.run(["audit", "--all", "--depth", "1", "/bin/ls"])
        #expect(!shallow.stdout.contains("libpcre2-8.so.0 [ld.so.conf]"))
    }

    @Test func folderModeAuditsEveryELFFileAndSummarizes() throws {
        let folder = TemporaryFolders.root + "/premain-dir-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: "/bin/ls", toPath: folder + "/bin/ls")
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: folder + "/true")
        try "text\n".write(toFile: folder + "/bin/notes.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder + "/bin/self", withDestinationPath: folder)
        let result = try CLI.run(["audit", "--format", "json", folder])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let report = try json(result.stdout)
        let paths = (report["binaries"] as? [[String: Any]])?.compactMap { $0["path"] as? String }
        #expect(paths == [folder + "/true", folder + "/bin/ls"])
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["files"] as? Int == 2)
        // Several files: schema 2, each closure object once in `objects`; --schema-version 1
        // writes every closure in full, and check reads both the same.
        #expect(report["schemaVersion"] as? Int == 2)
        let objects = try #require(report["objects"] as? [[String: Any]])
        #expect(objects.contains { $0["soname"] as? String == "libc.so.6" })
        let full = try CLI.run(["audit", "--format", "json", "--schema-version", "1", folder])
        let v1 = try json(full.stdout)
        #expect(v1["schemaVersion"] as? Int == 1 && v1["objects"] == nil)
        let single = try json(try CLI.run(["audit", "--format", "json", folder + "/true"]).stdout)
        #expect(single["schemaVersion"] as? Int == 1)
        for text in [result.stdout, full.stdout] {
            let file = folder + "/report-\(text.count).json"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let check = try CLI.run(["check", "--fail-on", "never", file])
            #expect(check.status == 0, "\(check.stderr)")
        }
        let bad = try CLI.run(["audit", "--format", "json", "--schema-version", "3", folder])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--schema-version takes a whole number from 1 to 2, not '3'"))
        let text = try CLI.run(["audit", folder])
        #expect(text.stdout.contains("Summary of 2 files"))
        #expect(text.stdout.contains("Most relocations"))
    }
}
