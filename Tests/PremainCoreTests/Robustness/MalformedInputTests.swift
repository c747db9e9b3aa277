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

/// Damaged files made in code: every one must be audited or rejected with one clear error,
/// never a crash, a hang or an unbounded allocation.
@Suite struct MalformedInputTests {
    static let original: [UInt8] = {
        let path = (try? Samples.path("cxx-static-init/libinit.so")) ?? "/usr/lib/x86_64-linux-gnu/libz.so.1"
        return FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
    }()

    let folder: String = {
        let path = TemporaryFolders.root + "/premain-malformed-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Audits `bytes` written to a file; returns the error message or the diagnostics.
    @discardableResult
    func audit(_ bytes: [UInt8], name: String = "sample") -> (error: ELFOpenError?, diagnostics: [String]) {
        let path = folder + "/" + name
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let inventory = try InventoryBuilder.audit(path: path, options: InventoryOptions(symbolLists: true))
            // Rendering must not trip over whatever was decoded.
            _ = AuditTextRenderer.render(AuditReport(binaries: [inventory], errors: []))
            return (nil, inventory.diagnostics)
        } catch {
            return (error, [])
        }
    }

    @Test func originalIsSound() {
        #expect(Self.original.count > 4096)
        #expect(audit(Self.original).diagnostics.isEmpty)
    }

    @Test func truncationAtManyOffsetsNeverCrashes() {
        let bytes = Self.original
        var offsets = Array(0..<80) + [128, 256, 512, 1000]
        offsets += stride(from: 1024, to: bytes.count, by: max(1, bytes.count / 150))
        var rejected = 0
        var diagnosed = 0
        for offset in offsets where offset < bytes.count {
            let result = audit(Array(bytes[0..<offset]))
            if result.error != nil { rejected += 1 } else if !result.diagnostics.isEmpty { diagnosed += 1 }
        }
        #expect(rejected > 0)
        // A truncated shared library loses its section header table (at the end): diagnosed.
        #expect(diagnosed + rejected >= offsets.filter { $0 < bytes.count }.count - 1)
    }

    @Test func emptyShortAndNonELFFilesAreRejectedWithReasons() {
        #expect(audit([]).error?.reason == .notELF)
        #expect(audit([0x7f, 0x45]).error?.message == "truncated ELF identification (2 bytes)")
        #expect(audit(Array("#!/bin/sh\necho hi\n".utf8)).error?.reason == .notELF)
        #expect(audit(Array("!<arch>\nxxxxxxxxxxxxxxxxxxxx".utf8)).error?.message.contains("ar archive") == true)
        var badClass = Self.original
        badClass[4] = 9
        #expect(audit(badClass).error?.message == "invalid ELF class 9")
    }

    @Test func corruptedHeaderFieldsAreDiagnosed() {
        let cases: [(String, Int, [UInt8])] = [
            ("e_shoff far outside", 40, [0, 0, 0, 0, 0, 0, 0, 0x70]),
            ("e_phoff far outside", 32, [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]),
            ("e_shnum absurd", 60, [0xff, 0xfe]),
            ("e_phnum absurd", 56, [0xff, 0xfe]),
            ("e_shstrndx absurd", 62, [0xf0, 0xfe]),
            ("e_shentsize wrong", 58, [0x10, 0x00]),
        ]
        for (label, offset, patch) in cases {
            var bytes = Self.original
            bytes.replaceSubrange(offset..<offset + patch.count, with: patch)
            let result = audit(bytes)
            #expect(result.error != nil || !result.diagnostics.isEmpty, "\(label) went unnoticed")
        }
    }

    @Test func absurdSectionOffsetsAndSizesAreDiagnosedPerTable() throws {
        let bytes = Self.original
        let shoff = Int(littleEndian(bytes, 40, 8))
        let shnum = Int(littleEndian(bytes, 60, 2))
        var damagedAny = 0
        for index in 1..<shnum {
            let header = shoff + index * 64
            let type = littleEndian(bytes, header + 4, 4)
            guard [2, 4, 6, 11, 14, 0x6fff_fffe, 0x6fff_ffff].contains(type) else { continue }
            for (field, value) in [
                (24, UInt64(1) << 62), (32, UInt64(1) << 61), (40, UInt64(0xffff)), (0, UInt64(0xfff_ffff)),
            ] {
                var copy = bytes
                let width = field == 40 || field == 0 ? 4 : 8
                for byte in 0..<width {
                    copy[header + field + byte] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(byte)))
                }
                let result = audit(copy)
                #expect(result.error == nil, "section \(index) field \(field): whole file rejected")
                damagedAny += 1
            }
        }
        #expect(damagedAny > 10)
    }

    @Test func randomByteFlipsNeverCrash() {
        var generator = SplitMix64(seed: 0x5eed)
        let bytes = Self.original
        for _ in 0..<400 {
            var copy = bytes
            for _ in 0..<8 {
                let position = Int(generator.next() % UInt64(copy.count))
                copy[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            audit(copy)
        }
        // Dense damage in the headers and tables at the front.
        for _ in 0..<200 {
            var copy = bytes
            for _ in 0..<64 {
                let position = Int(generator.next() % UInt64(min(copy.count, 8192)))
                copy[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            audit(copy)
        }
    }

    @Test func directoryAndMissingFileGetClearErrors() {
        #expect(throws: ELFOpenError.self) { try InventoryBuilder.audit(path: folder) }
        do {
            _ = try InventoryBuilder.audit(path: folder + "/does-not-exist")
            Issue.record("missing file was audited")
        } catch {
            #expect(error.reason == .missing)
            #expect(error.message == "no such file or directory")
        }
    }

    func littleEndian(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}

/// A small deterministic generator for reproducible damage.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
