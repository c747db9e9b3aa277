import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// The JSON contract's keys must agree with GNU readelf on real files of this machine.
@Suite struct ReadelfCrossCheckTests {
    static let systemFiles = [
        "/usr/bin/ls", "/usr/bin/bash", "/usr/bin/git", "/usr/bin/perl", "/usr/bin/readelf",
        "/usr/bin/gdb", "/usr/bin/python3.11", "/usr/bin/eu-readelf", "/usr/bin/hyperfine",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",  // RELR
        "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
        "/usr/lib/x86_64-linux-gnu/libelf.so.1",
        "/usr/lib/x86_64-linux-gnu/libdw.so.1",
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
        "/usr/lib/x86_64-linux-gnu/libgcc_s.so.1",
        "/opt/swift/usr/lib/swift/linux/libswiftCore.so",
        "/opt/swift/usr/lib/swift/linux/libFoundationEssentials.so",
        "/opt/swift/usr/lib/swift/linux/libswift_Concurrency.so",
        "/opt/swift/usr/bin/swift-frontend",
        "/opt/swift/usr/bin/lldb",
    ]

    @Test func atLeastTwentySystemFilesArePresent() {
        let present = Self.systemFiles.filter { FileManager.default.fileExists(atPath: $0) }
        #expect(present.count >= 20, "missing: \(Set(Self.systemFiles).subtracting(present))")
    }

    @Test(arguments: systemFiles)
    func contractAgreesWithReadelf(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try expectAgreement(path)
    }

    @Test(arguments: [
        "c-hello/c-hello", "cxx-static-init/libinit.so", "cxx-static-init/cxx-static-init",
        "relr/librelr-plain.so", "relr/librelr-packed.so", "many-exports/libexports-default.so",
        "many-exports/libexports-hidden.so", "swift-startup/swift-startup",
    ])
    func samplesAgreeWithReadelf(sample: String) throws {
        try expectAgreement(try Samples.path(sample))
    }

    @Test func swiftFrontendHasHundredsOfInitializersAndAboutQuarterMillionRelocations() throws {
        let inventory = try InventoryBuilder.audit(path: "/opt/swift/usr/bin/swift-frontend")
        #expect(inventory.initializers.initArray > 300)
        #expect(inventory.relocations.total > 200_000)
        #expect(inventory.dynamic.runpath.contains { $0.hasPrefix("$ORIGIN") })
    }

    @Test func libcUsesRELRAndPremainDecodesEveryAddress() throws {
        let inventory = try InventoryBuilder.audit(path: "/usr/lib/x86_64-linux-gnu/libc.so.6")
        #expect(inventory.relocations.relrAddresses > 0)
        #expect(inventory.relocations.tables.contains { $0.format == .relr })
    }

    func expectAgreement(_ path: String) throws {
        let expected = try ReadelfFacts.of(path)
        let inventory = try InventoryBuilder.audit(path: path)
        let report = AuditReport(binaries: [inventory], errors: [])
        // Through JSON, as outside tools read it.
        let json = try JSONSerialization.jsonObject(with: Data(try JSONRenderer.render(report).utf8)) as? [String: Any]
        let binary = (json?["binaries"] as? [[String: Any]])?.first
        let relocations = binary?["relocations"] as? [String: Any]
        let symbols = binary?["symbols"] as? [String: Any]
        let initializers = binary?["initializers"] as? [String: Any]
        #expect(json?["schemaVersion"] as? Int == 1)
        #expect(binary?["path"] as? String == path)
        #expect(binary?["needed"] as? [String] == expected.needed, "\(path)")
        #expect(relocations?["relative"] as? Int == expected.relative, "\(path): \(expected)")
        #expect(relocations?["symbolic"] as? Int == expected.symbolic, "\(path): \(expected)")
        #expect(relocations?["plt"] as? Int == expected.plt, "\(path): \(expected)")
        #expect(relocations?["copy"] as? Int == expected.copy, "\(path): \(expected)")
        #expect(relocations?["irelative"] as? Int == expected.irelative, "\(path): \(expected)")
        #expect(relocations?["tls"] as? Int == expected.tls, "\(path): \(expected)")
        #expect(relocations?["total"] as? Int == expected.total, "\(path): \(expected)")
        #expect(symbols?["exported"] as? Int == expected.exported, "\(path): \(expected)")
        #expect(symbols?["imported"] as? Int == expected.imported, "\(path): \(expected)")
        #expect(initializers?["initArray"] as? Int == expected.initArray, "\(path): \(expected)")
        #expect(initializers?["preinitArray"] as? Int == expected.preinitArray, "\(path): \(expected)")
        #expect(inventory.diagnostics.isEmpty, "\(path): \(inventory.diagnostics)")
    }
}
