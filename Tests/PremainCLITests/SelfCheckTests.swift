import Foundation
import PremainModel
import PremainTestSupport
import XCTest

/// premain checks itself: the release build (scripts/release, static Swift standard library)
/// must pass `premain check` with the repository's premain.json, and the packages scripts/release
/// makes (the tarball, the .deb) hold what they promise and run; the time-to-main budget is
/// read from a measure report. How fast it reaches `main` against samples/c-hello and the
/// budget is a benchmark's figure (scripts/bench-measure), not a test's.
final class SelfCheckTests: XCTestCase {
    /// The release binary, built once into .build/self-check (its own scratch folder: `swift
    /// test` holds the lock of .build).
    static let release: Result<String, SampleBuildError> = {
        let output = TemporaryFolders.root + "/premain-self-check-\(getpid())"
        let script = Repository.root + "/scripts/release"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, output]
        process.currentDirectoryURL = URL(fileURLWithPath: Repository.root)
        var environment = ProcessInfo.processInfo.environment
        environment["SCRATCH"] = Repository.root + "/.build/self-check"
        process.environment = environment
        let log = output + ".log"
        try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: log) else {
            return .failure(.init(message: "cannot write \(log)"))
        }
        process.standardOutput = handle
        process.standardError = handle
        do {
            try process.run()
        } catch {
            return .failure(.init(message: "cannot run scripts/release: \(error)"))
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(
                .init(message: "scripts/release failed: " + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? ""))
            )
        }
        let tree = ((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? [])
            .first { $0.hasPrefix("premain-") && $0.hasSuffix("-x86_64-linux-gnu") }
        guard let tree else {
            return .failure(
                .init(message: "scripts/release left no premain-VERSION-x86_64-linux-gnu folder in \(output)"))
        }
        return .success(output + "/" + tree + "/bin/premain")
    }()

    /// The binary scripts/release packaged, as built (with its symbol table: the packages'
    /// copy is stripped, as Debian wants, which leaves the initializers unnamed). The budget in
    /// premain.json is the build's.
    static var built: Result<String, SampleBuildError> {
        release.map { _ in Repository.root + "/.build/self-check/release/premain" }
    }

    /// The folder scripts/release wrote the packages to.
    static func releaseFolder() throws -> String {
        let binary = try release.get()
        return (((binary as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent as NSString)
            .deletingLastPathComponent
    }

    /// The tarball holds the binary, the README and a SHA256SUMS that checks; the release's
    /// SHA256SUMS checks both packages; the .deb depends on the libraries the binary needs, and
    /// its binary, unpacked into a scratch root, audits /bin/ls and names its commit.
    func testReleasePackagesHoldWhatTheyPromiseAndRun() throws {
        let folder = try Self.releaseFolder()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        let tarball = try XCTUnwrap(files.first { $0.hasSuffix("-x86_64-linux-gnu.tar.gz") }, "\(files)")
        let deb = try XCTUnwrap(files.first { $0.hasSuffix("_amd64.deb") }, "\(files)")
        let version = String(tarball.dropFirst("premain-".count).dropLast("-x86_64-linux-gnu.tar.gz".count))
        XCTAssertEqual(deb, "premain_\(version)_amd64.deb")
        let sums = try Shell.run(["sha256sum", "-c", "--strict", "SHA256SUMS"], in: folder)
        XCTAssertEqual(sums.status, 0, sums.stdout + sums.stderr)
        let listing = try Shell.run(["tar", "-tzf", folder + "/" + tarball])
        let name = "premain-\(version)-x86_64-linux-gnu/"
        for entry in [
            "bin/premain", "README.md", "LICENSE", "SHA256SUMS", "share/man/man1/premain.1",
            "share/bash-completion/completions/premain", "share/zsh/site-functions/_premain",
            "share/fish/vendor_completions.d/premain.fish", "lib/premain/libpremain-record.so",
            "include/premain/premain_mark.h", "include/premain/premain_spool.h",
        ] {
            XCTAssertTrue(
                listing.stdout.split(separator: "\n").contains { $0 == name + entry }, "\(entry) not in \(tarball)")
        }
        let inner = try Shell.run(["sha256sum", "-c", "--strict", "SHA256SUMS"], in: folder + "/" + name)
        XCTAssertEqual(inner.status, 0, inner.stdout + inner.stderr)
        // Depends as dpkg-shlibdeps computes it from the binaries (issue 36, item 5): glibc 2.36
        // (arc4random), no libstdc++6 nor libgcc-s1 (both linked statically, issue 37); libdw and
        // SQLite are loaded on first use, so recommended.
        let depends = try Shell.run(["dpkg-deb", "-f", folder + "/" + deb, "Depends", "Recommends"])
        XCTAssertTrue(depends.stdout.contains("Depends: libc6 (>= 2.36), libelf1 (>= 0.165)\n"), depends.stdout)
        XCTAssertFalse(depends.stdout.contains("libstdc++6"), depends.stdout)
        XCTAssertFalse(depends.stdout.contains("libgcc-s1"), depends.stdout)
        XCTAssertTrue(depends.stdout.contains("Recommends: libdw1, libsqlite3-0"), depends.stdout)
        // lintian finds nothing to say (item 6): no error, no warning.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/lintian") {
            let lint = try Shell.run(["lintian", "--fail-on", "error,warning", folder + "/" + deb])
            XCTAssertEqual(lint.status, 0, lint.stdout + lint.stderr)
            XCTAssertFalse(
                lint.stdout.split(separator: "\n").contains { $0.hasPrefix("E:") || $0.hasPrefix("W:") }, lint.stdout)
        }
        // The tarball's entries are dated by the commit, not 1970 (item 8).
        let dated = try Shell.run(["tar", "--full-time", "-tvzf", folder + "/" + tarball])
        XCTAssertFalse(dated.stdout.contains(" 1970-01-01 "), dated.stdout)
        let root = TemporaryFolders.root + "/premain-deb-root-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: root) }
        XCTAssertEqual(try Shell.run(["dpkg", "-x", folder + "/" + deb, root]).status, 0)
        let installed = root + "/usr/bin/premain"
        let audit = try CLI.run(["audit", "/bin/ls"], executable: installed)
        XCTAssertEqual(audit.status, 0, audit.stderr)
        XCTAssertTrue(audit.stdout.contains("libc.so.6"), audit.stdout)
        // Where Debian looks for them: the man page (gzipped, and it renders) and each shell's completion.
        for path in [
            "usr/share/man/man1/premain.1.gz", "usr/share/bash-completion/completions/premain",
            "usr/share/zsh/vendor-completions/_premain", "usr/share/fish/vendor_completions.d/premain.fish",
            "usr/share/doc/premain/copyright", "usr/include/premain/premain_mark.h",
            "usr/include/premain/premain_spool.h",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/" + path), "\(path) not in \(deb)")
        }
        // The field recorder where `premain field path` looks (<bin>/../lib/premain), needing nothing.
        let recorder = root + "/usr/lib/premain/libpremain-record.so"
        let dynamic = try Shell.run(["readelf", "-dW", recorder])
        XCTAssertEqual(dynamic.status, 0, dynamic.stderr)
        XCTAssertFalse(dynamic.stdout.contains("(NEEDED)"), dynamic.stdout)
        let spool = root + "/spool"
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        let recorded = try Shell.run(
            ["/bin/true"], environment: ["LD_AUDIT": recorder, "PREMAIN_FIELD_DIR": spool])
        XCTAssertEqual(recorded.status, 0, recorded.stderr)
        let records = try String(contentsOfFile: spool + "/\(getuid()).records", encoding: .utf8)
        XCTAssertTrue(records.hasPrefix("premain-record/1 kind=launch "), records)
        let manual = try Shell.run(["man", "-l", root + "/usr/share/man/man1/premain.1.gz"])
        XCTAssertEqual(manual.status, 0, manual.stderr)
        XCTAssertTrue(manual.stdout.contains("EXIT STATUS"), manual.stdout)
        let shown = try CLI.run(["--version"], executable: installed)
        XCTAssertTrue(shown.stdout.hasPrefix(version + " (commit "), shown.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/usr/share/doc/premain/README.md"))
    }

    func testReleaseBinaryPassesItsOwnBudget() throws {
        let binary = try Self.built.get()
        let result = try CLI.run([
            "check", "--config", Repository.root + "/premain.json",
            "--fail-on", "warning", binary,
        ])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let audit = try CLI.run(["audit", "--format", "json", binary])
        XCTAssertFalse(
            audit.stdout.contains("libswiftCore.so"), "the release build links the Swift standard library statically")
        let needed = try XCTUnwrap(
            try JSONDecoder().decode(AuditReport.self, from: Data(audit.stdout.utf8)).binaries.first
        ).needed
        for library in ["libdw.so.1", "libsqlite3.so.0"] {
            XCTAssertFalse(
                needed.contains(library),
                "\(library) is loaded on first use (CLazyLibraries), not at every start: \(needed)")
        }
    }

    /// One initializer fewer allowed than the release binary has fails, naming both counts; the
    /// count is the audit's, read at run time (it is the toolchain's Swift runtime's).
    func testReleaseBinaryFailsABudgetThatIsTooTight() throws {
        let binary = try Self.built.get()
        let audit = try CLI.run(["audit", "--format", "json", binary])
        let inventory = try XCTUnwrap(
            try JSONDecoder().decode(AuditReport.self, from: Data(audit.stdout.utf8)).binaries.first)
        let count = inventory.initializers.entries.filter { !$0.toolchain }.count
        try XCTSkipIf(count == 0, "the release binary has no static initializer to allow one fewer of")
        let folder = TemporaryFolders.root + "/premain-self-tight-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #"{"allowlist": [{"object": "premain", "count": \#(count - 1), "reason": "too few on purpose"}]}"#
            .write(toFile: folder + "/premain.json", atomically: true, encoding: .utf8)
        let result = try CLI.run(["check", "--config", folder + "/premain.json", binary])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(
            result.stdout.contains("premain has \(count) static initializers, 1 more than the \(count - 1) allowed"),
            result.stdout)
    }

    /// The time-to-main budget is read from the measure report (recorded: main after 2.4 ms in
    /// every run): a budget below the median fails `check` with exit 1 and names the figure; one
    /// above it passes.
    func testTimeToMainBudgetIsReadFromTheMeasureReport() throws {
        let folder = TemporaryFolders.root + "/premain-self-budget-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try RecordedReports.measure(
            command: "/usr/local/bin/premain", milestones: ["main": RecordedReports.series(2.4)]
        )
        .write(toFile: folder + "/measure.json", atomically: true, encoding: .utf8)
        func check(budgetMs: String) throws -> CLI.Result {
            try #"{"budgets": {"maxMedianMsToMain": \#(budgetMs)}}"#.write(
                toFile: folder + "/premain.json", atomically: true, encoding: .utf8)
            return try CLI.run(["check", "--config", folder + "/premain.json", folder + "/measure.json"])
        }
        let tight = try check(budgetMs: "2")
        XCTAssertEqual(tight.status, 1, tight.stdout + tight.stderr)
        XCTAssertTrue(tight.stdout.contains("budget_time_to_main"), tight.stdout)
        XCTAssertTrue(tight.stdout.contains("premain reaches main after"), tight.stdout)
        let loose = try check(budgetMs: "3")
        XCTAssertEqual(loose.status, 0, loose.stdout + loose.stderr)
        XCTAssertFalse(loose.stdout.contains("budget_time_to_main"), loose.stdout)
    }
}
