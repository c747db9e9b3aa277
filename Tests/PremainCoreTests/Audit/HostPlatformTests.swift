import ELFKit
import Foundation
import PremainAudit
import PremainJudge
import Testing

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
}
