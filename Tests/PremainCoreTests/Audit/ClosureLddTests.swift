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

/// The closure premain resolves statically equals the one `ld.so` resolves (`ldd`) on real
/// executables of this machine, compared by real path.
@Suite struct ClosureLddTests {
    static let executables = [
        "/opt/swift/usr/bin/swift-frontend", "/opt/swift/usr/bin/lldb", "/opt/swift/usr/bin/sourcekit-lsp",
        "/opt/swift/usr/bin/lldb-server", "/opt/swift/usr/bin/clang", "/opt/swift/usr/bin/swift-package",
        "/opt/swift/usr/bin/swift-driver", "/opt/swift/usr/bin/lld",
        "/bin/ls", "/usr/bin/python3", "/usr/bin/git", "/usr/bin/perl", "/usr/bin/curl", "/usr/bin/ssh",
        "/usr/bin/gdb", "/usr/bin/eu-readelf", "/usr/bin/readelf", "/usr/bin/hyperfine", "/usr/bin/gpg",
        "/usr/bin/openssl", "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "/bin/bash",
    ]

    @Test(arguments: executables)
    func closureEqualsLdd(_ path: String) throws {
        let expected = try LddOutput.of(path)
        let closure = try ClosureResolver(options: ClosureOptions(findUnused: false, computeCosts: false))
            .resolve(path: path)
        let ours = Set(closure.objects.map(\.realPath))
        #expect(
            ours == expected.resolved,
            "only premain: \(ours.subtracting(expected.resolved)); only ldd: \(expected.resolved.subtracting(ours))")
        #expect(Set(closure.missing.map(\.name)) == expected.notFound)
        #expect(closure.objects.count == ours.count, "an object is listed twice")
        #expect(closure.objects.contains { $0.foundVia == .interpreter })
    }

    /// Unused direct dependencies equal `ldd -u`'s (lldb and sourcekit-lsp have some).
    @Test(arguments: executables)
    func unusedEqualsLddU(_ path: String) throws {
        let result = try Shell.run(["ldd", "-u", path])
        let expected = result.stdout.split(separator: "\n").dropFirst()
            .map { URL(fileURLWithPath: $0.trimmingCharacters(in: .whitespaces)).lastPathComponent }
        let closure = try ClosureResolver(options: ClosureOptions(computeCosts: false)).resolve(path: path)
        let ours = closure.unusedNeeded.map { URL(fileURLWithPath: $0).lastPathComponent }
        #expect(ours == expected)
    }

    /// Every executable in /usr/bin, audited as a folder: closures and unused dependencies
    /// equal ldd's and ldd -u's.
    @Test func everyExecutableInUsrBinMatchesLdd() throws {
        let report = BatchAudit().run(["/usr/bin"])
        var compared = 0
        for binary in report.binaries where [.executable, .pieExecutable].contains(binary.header.kind) {
            guard let closure = binary.closure else { continue }
            let expected = try LddOutput.of(binary.path)
            #expect(Set(closure.objects.map(\.realPath)) == expected.resolved, "\(binary.path)")
            #expect(Set(closure.missing.map(\.name)) == expected.notFound, "\(binary.path)")
            let unused = try Shell.run(["ldd", "-u", binary.path]).stdout.split(separator: "\n").dropFirst()
                .map { URL(fileURLWithPath: $0.trimmingCharacters(in: .whitespaces)).lastPathComponent }
            #expect(binary.unusedNeeded ?? [] == unused, "\(binary.path)")
            compared += 1
        }
        #expect(compared > 300)
    }

    /// swift-frontend finds the Swift runtime through DT_RUNPATH with $ORIGIN, and libc through
    /// the cache; its direct dependencies have depth 1.
    @Test func swiftFrontendUsesRunpathAndCache() throws {
        let closure = try ClosureResolver().resolve(path: "/opt/swift/usr/bin/swift-frontend")
        let core = try #require(closure.objects.first { $0.soname == "libswiftCore.so" })
        #expect(core.foundVia == .runpath)
        #expect(core.path == "/opt/swift/usr/bin/../lib/swift/linux/libswiftCore.so")
        #expect(core.depth == 1)
        let libc = try #require(closure.objects.first { $0.soname == "libc.so.6" })
        #expect(libc.foundVia == .ldSoCache)
        #expect(libc.system)
        // libdispatch is needed only by libswift_Concurrency (itself needed by the compiler's
        // Swift libraries): depth 3, through that library's RUNPATH.
        let dispatch = try #require(closure.objects.first { $0.soname == "libdispatch.so" })
        #expect(dispatch.depth == 3)
        #expect(dispatch.foundVia == .runpath)
        #expect(dispatch.neededBy.hasSuffix("/libswift_Concurrency.so"))
        #expect(!dispatch.system)
        let totals = try #require(closure.totals)
        #expect(totals.objects == closure.objects.count)
        #expect(totals.relocations.total > 100_000)
        #expect(totals.lookups > 0 && totals.lookups < totals.relocations.total)
        #expect(closure.top.count == 5)
        #expect(closure.top.first?.relocations ?? 0 >= closure.top.last?.relocations ?? 0)
    }
}

/// What `ldd` prints for one file: resolved real paths (vDSO dropped) and names not found.
struct LddOutput {
    var resolved: Set<String> = []
    var notFound: Set<String> = []

    static func of(_ path: String, environment: [String: String] = [:]) throws -> LddOutput {
        let result = try Shell.run(["ldd", path], environment: environment)
        var output = LddOutput()
        for rawLine in result.stdout.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("linux-vdso") || line.hasPrefix("linux-gate") { continue }
            if let arrow = line.range(of: " => ") {
                let name = String(line[..<arrow.lowerBound])
                let rest = line[arrow.upperBound...]
                if rest.hasPrefix("not found") {
                    output.notFound.insert(name)
                    continue
                }
                let target = rest.split(separator: " ").first.map(String.init) ?? ""
                output.resolved.insert(realPath(target))
            } else if line.hasPrefix("/") {
                let target = line.split(separator: " ").first.map(String.init) ?? ""
                output.resolved.insert(realPath(target))
            }
        }
        return output
    }

    static func realPath(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
