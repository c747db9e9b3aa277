import Foundation
import PremainAudit
import PremainJudge
import PremainModel
import PremainTestSupport
import Testing

/// The linker and languages told from files built here with each linker, and the advice the
/// rules give for them.
@Suite struct ToolchainDetectionTests {
    /// c-hello linked by GNU ld (gcc's default), gold and lld, built once into a temporary folder.
    static let linked: Result<[String: String], SampleBuildError> = {
        let folder = URL(fileURLWithPath: TemporaryFolders.root).appendingPathComponent("premain-linkers-\(getpid())")
            .path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let source = Repository.root + "/samples/c-hello/hello.c"
        var built: [String: String] = [:]
        for (name, flag) in [("bfd", "-fuse-ld=bfd"), ("gold", "-fuse-ld=gold"), ("lld", "-fuse-ld=lld")] {
            let output = folder + "/hello-" + name
            guard let result = try? Shell.run(["gcc", flag, "-O1", "-o", output, source]), result.status == 0 else {
                return .failure(SampleBuildError(message: "gcc \(flag) failed"))
            }
            built[name] = output
        }
        return .success(built)
    }()

    static func toolchain(_ path: String) throws -> BuildToolchain {
        try #require(try InventoryBuilder.audit(path: path).toolchain)
    }

    @Test func gccDefaultIsGNULd() throws {
        let toolchain = try Self.toolchain(try #require(try Self.linked.get()["bfd"]))
        #expect(toolchain.linker == .gnuLD)
        #expect(toolchain.evidence == .commentWithoutLinker)
        #expect(toolchain.languages == [.c])
        #expect(toolchain.comments.contains { $0.hasPrefix("GCC: ") })
    }

    @Test func goldIsToldByItsNote() throws {
        let toolchain = try Self.toolchain(try #require(try Self.linked.get()["gold"]))
        #expect(toolchain.linker == .gold)
        #expect(toolchain.evidence == .goldNote)
        // Against what GNU readelf prints of the note, read at run time.
        let notes = try Shell.run(["readelf", "-n", try #require(try Self.linked.get()["gold"])]).stdout
        let version = try #require(toolchain.linkerVersion)
        #expect(notes.contains("gold \(version)"))
    }

    @Test func lldIsToldByItsComment() throws {
        let toolchain = try Self.toolchain(try #require(try Self.linked.get()["lld"]))
        #expect(toolchain.linker == .lld)
        #expect(toolchain.evidence == .comment)
        let version = try #require(toolchain.linkerVersion)
        #expect(toolchain.comments.contains { $0.hasPrefix("Linker: LLD \(version)") })
    }

    @Test func swiftcLinksWithGoldAndTheFileIsSwift() throws {
        let toolchain = try Self.toolchain(try Samples.path("swift-startup/swift-startup"))
        #expect(toolchain.linker == .gold)
        #expect(toolchain.languages.first == .swift)
        #expect(try Self.toolchain(try Samples.path("cxx-static-init/libinit.so")).languages == [.cxx])
    }

    @Test func recordedCommentsAndStrippedFiles() {
        #expect(
            ToolchainDetector.linker(goldNote: nil, comments: ["mold 2.4.0 (abc; compatible with GNU ld)"]) == (
                .mold, "2.4.0", .comment
            ))
        #expect(
            ToolchainDetector.linker(goldNote: nil, comments: ["GNU gold (GNU Binutils 2.40) 1.16"]) == (
                .gold, "1.16", .comment
            ))
        #expect(ToolchainDetector.linker(goldNote: nil, comments: []) == (.unknown, nil, .none))
        #expect(
            ToolchainDetector.linker(goldNote: "gold 1.16", comments: ["Linker: LLD 21.0.0"]) == (
                .gold, "1.16", .goldNote
            ))
        // Hostile: huge or odd strings keep the version short or absent.
        let long = "Linker: LLD " + String(repeating: "9", count: 10_000)
        #expect(ToolchainDetector.linker(goldNote: nil, comments: [long]).1?.count == 32)
        #expect(ToolchainDetector.linker(goldNote: nil, comments: ["Linker: LLD \u{1b}x"]).1 == nil)
    }

    /// Sizes by section agree with GNU readelf's section table, whichever linker laid the file out.
    @Test(arguments: ["bfd", "gold", "lld"])
    func sizesFollowSectionsUnderEveryLayout(linker: String) throws {
        let path = try #require(try Self.linked.get()[linker])
        let sizes = try InventoryBuilder.audit(path: path).sizes
        #expect(sizes.basis == .sections)
        let table = try Shell.run(["readelf", "-SW", path]).stdout
        var code: UInt64 = 0
        var readOnly: UInt64 = 0
        for line in table.split(separator: "\n") where line.contains("] ") {
            let fields = line.split(separator: "]", maxSplits: 1)[1].split(separator: " ")
            // Name Type Address Off Size ES Flg ...
            guard fields.count >= 7, let size = UInt64(fields[4], radix: 16), fields[1] != "NOBITS" else { continue }
            let flags = fields[6]
            guard flags.contains("A") else { continue }
            if flags.contains("X") { code += size } else if !flags.contains("W") { readOnly += size }
        }
        #expect(sizes.text == code)
        #expect(sizes.rodata == readOnly)
        #expect(sizes.relro > 0)
    }

    @Test func goldLinkedSwiftHasReadOnlyDataOutsideText() throws {
        let sizes = try InventoryBuilder.audit(path: try Samples.path("swift-startup/swift-startup")).sizes
        // gold puts read-only data in the executable segment; sections tell them apart.
        #expect(sizes.rodata > 0)
        #expect(sizes.relro > 0)
    }
}

/// The rules' advice chosen by the file's linker and language.
@Suite struct LinkerAdviceTests {
    static func toolchain(_ linker: BuildToolchain.Linker, _ languages: [BuildToolchain.Language]) -> BuildToolchain {
        BuildToolchain(
            linker: linker, linkerVersion: linker == .gold ? "1.16" : nil, evidence: .comment, languages: languages)
    }

    @Test func goldGetsLLDNeverTheFlagItRejects() {
        let swift = LinkerAdvice.packRelativeRelocations(Self.toolchain(.gold, [.swift]))
        #expect(swift.contains("swift build -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs"))
        #expect(swift.contains("target_link_options(<target> PRIVATE -use-ld=lld \"LINKER:-z,pack-relative-relocs\")"))
        #expect(swift.contains("gold 1.16, which linked this file, cannot"))
        #expect(!swift.contains("-Wl,"))
        let c = LinkerAdvice.packRelativeRelocations(Self.toolchain(.gold, [.c]))
        #expect(c.contains("-fuse-ld=bfd") && c.contains("-Wl,-z,pack-relative-relocs"))
    }

    @Test func linkersThatPackGetTheirLanguagesSpelling() {
        let c = LinkerAdvice.packRelativeRelocations(Self.toolchain(.gnuLD, [.c]))
        #expect(c.hasPrefix("link with -Wl,-z,pack-relative-relocs"))
        #expect(c.contains("target_link_options(<target> PRIVATE \"LINKER:-z,pack-relative-relocs\")"))
        let swift = LinkerAdvice.packRelativeRelocations(Self.toolchain(.lld, [.swift]))
        #expect(swift.hasPrefix("link with swift build -Xlinker -z -Xlinker pack-relative-relocs"))
        #expect(LinkerAdvice.packRelativeRelocations(nil).contains("gold rejects it"))
    }

    @Test func relrRuleUsesTheFilesLinker() throws {
        var input = try RuleSamples.input("relr/librelr-plain.so")
        input.objects[0].toolchain = Self.toolchain(.gold, [.c])
        let config = RuleConfig(RelativeRelocationsWithoutRelrRule.description)
        let advice = try #require(RelativeRelocationsWithoutRelrRule().check(input, config).first).advice
        #expect(advice.contains("cannot pack them"))
        input.objects[0].toolchain = Self.toolchain(.gnuLD, [.c])
        #expect(
            RelativeRelocationsWithoutRelrRule().check(input, config).first?.advice.contains(
                "link with -Wl,-z,pack-relative-relocs") == true)
    }

    @Test func swiftToolchainLibrariesAreNotOnTheLinkLine() {
        let swift = Self.toolchain(.gold, [.swift])
        for library in [
            "libdispatch.so", "libswift_StringProcessing.so", "libFoundation.so", "libswiftCore.so", "libm.so.6",
        ] {
            let advice = LinkerAdvice.dropUnused(library, from: "math", toolchain: swift)
            #expect(!advice.contains("remove \(library)") && !advice.contains("Remove \(library)"), "\(advice)")
            #expect(advice.contains("not on any link line you wrote"))
        }
        #expect(
            LinkerAdvice.dropUnused("libswift_StringProcessing.so", from: "math", toolchain: swift)
                .contains("--static-swift-stdlib"))
        #expect(
            LinkerAdvice.dropUnused("libfoo.so", from: "app", toolchain: Self.toolchain(.gnuLD, [.c]))
                .contains("-Wl,--as-needed"))
    }
}
