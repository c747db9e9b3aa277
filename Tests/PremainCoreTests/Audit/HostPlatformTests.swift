import ELFKit
import Foundation
import PremainJudge
import Testing

@testable import PremainAudit

/// The machine premain runs on is read from uname(2), not assumed: the rule input's libc and
/// anything else that needs "this machine's loader" works on any glibc port.
@Suite struct HostPlatformTests {
    @Test func hostLoaderIsTheOneOfThisMachinesPrograms() throws {
        let host = try #require(LoaderPlatform.host)
        let program = try ELFFile(path: "/bin/true")
        #expect(host.machine == program.machine)
        #expect(host.elfClass == program.elfClass)
    }

    @Test func hostLibcIsFoundInTheLoadersDefaultDirectories() {
        let paths = RuleInputLoader.hostLibcPaths
        #expect(paths.contains { FileManager.default.fileExists(atPath: $0) }, "\(paths)")
        // The multiarch folder of this machine's loader comes first.
        let triplet = try? #require(LoaderPlatform.host?.triplet)
        #expect(paths.first == triplet.map { "/lib/\($0)/libc.so.6" })
    }

    @Test func cpuFlagsAreReadFromTheFlagsOrFeaturesLine() {
        #expect(HostCPU.flags(inLine: "model name\t: AMD EPYC\n") == nil)
        #expect(HostCPU.flags(inLine: "flags\t\t: fpu  sse4_2\tavx2 popcnt\n") == ["fpu", "sse4_2", "avx2", "popcnt"])
        #expect(HostCPU.flags(inLine: "Features\t: fp asimd evtstrm\n") == ["fp", "asimd", "evtstrm"])
        #expect(HostCPU.flags(inLine: "flags\t\t:\n") == [])
        #expect(HostCPU.flags(inLine: "flags without a colon") == [])
        // This machine's first processor, as the file lists it.
        let listed = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("flags") || $0.hasPrefix("Features") }
        if let listed {
            let words = listed.split(separator: ":", maxSplits: 1).last?.split(separator: " ").map(String.init) ?? []
            #expect(HostCPU.flags == Set(words))
        }
    }
}
