import ELFKit
import Foundation
import PremainAudit
import PremainModel
import PremainTestSupport
import Testing

/// Files whose section headers lie or are missing (samples/odd): premain reports what the
/// loader does, which reads the dynamic tags, and says where the headers disagree.
@Suite struct OddFileTests {
    static func audit(_ name: String) throws -> BinaryInventory {
        try InventoryBuilder.audit(path: try Samples.path("odd/" + name))
    }

    /// The unpatched library: the facts every odd copy must keep.
    @Test func theSourceLibraryIsSound() throws {
        let library = try Self.audit("libodd.so")
        #expect(library.needed == ["libm.so.6"])
        #expect(library.relocations.relative == 3)
        #expect(library.relocations.symbolic == 7)
        #expect(library.relocations.plt == 1)
        #expect(library.initializers.entries.compactMap(\.symbol).contains("odd_ctor"))
        #expect(library.diagnostics.isEmpty)
    }

    @Test func aDecoyDynstrIsNotRead() throws {
        let library = try Self.audit("decoy-dynstr.so")
        let sound = try Self.audit("libodd.so")
        #expect(library.needed == ["libm.so.6"])
        #expect(library.header.soname == "libodd.so")
        // Names come from DT_STRTAB: the constructor is still named, imports still bind.
        #expect(library.initializers.entries.compactMap(\.symbol) == sound.initializers.entries.compactMap(\.symbol))
        let names = try #require(
            InventoryBuilder.audit(
                path: try Samples.path("odd/decoy-dynstr.so"),
                options: .init(symbolLists: true)
            ).symbols.exportedNames)
        #expect(names.contains { $0.hasPrefix("odd_ctor") })
        #expect(library.diagnostics.contains { $0.contains(".dynstr disagrees with DT_STRTAB") })
    }

    @Test func aFileWithoutSectionHeadersIsReadThroughItsTags() throws {
        let library = try Self.audit("no-sections.so")
        let sound = try Self.audit("libodd.so")
        #expect(library.needed == ["libm.so.6"])
        #expect(library.symbols.exported == sound.symbols.exported)
        #expect(library.symbols.imported == sound.symbols.imported)
        #expect(library.relocations.total == sound.relocations.total)
        #expect(library.relocations.tables.map(\.name) == ["DT_RELA", "DT_JMPREL"])
        #expect(library.initializers.initArray == 2)
        #expect(library.initializers.entries.compactMap(\.symbol).contains("odd_ctor"))
    }

    @Test func lyingSectionSizesLoseToTheTags() throws {
        let library = try Self.audit("lying-relocs.so")
        let sound = try Self.audit("libodd.so")
        #expect(library.relocations.symbolic == sound.relocations.symbolic)
        #expect(library.relocations.total == sound.relocations.total)
        #expect(library.initializers.initArray == 2)
        #expect(
            library.diagnostics.contains { $0.contains("relocation section headers disagree with the dynamic tags") })
        #expect(library.diagnostics.contains { $0.contains(".init_array disagrees with DT_INIT_ARRAY") })
    }

    @Test func loongArchRelocationsAreClassified() throws {
        let library = try Self.audit("loongarch.so")
        #expect(library.header.machineName == "EM_LOONGARCH")
        #expect(library.relocations.relative == 3)
        #expect(library.relocations.symbolic == 7)
        #expect(library.relocations.plt == 1)
    }

    @Test func relocatableInitArrayIsResolvedThroughItsRelocation() throws {
        let object = try Self.audit("ctor.o")
        #expect(object.header.kind == .relocatable)
        #expect(object.initializers.initArray == 1)
        let entry = try #require(object.initializers.entries.first)
        #expect(entry.symbol == "_GLOBAL__sub_I_registration")
        #expect(entry.resolution == .symbolRelocation)
    }

    static func oddTriples() throws -> [String] {
        try String(contentsOfFile: try Samples.path("odd/TRIPLES"), encoding: .utf8).split(separator: "\n").map(
            String.init)
    }

    /// MIPS64 little-endian keeps r_type in the top byte of r_info; R_MIPS_REL32 against
    /// symbol 0 relocates by the load address (there is no RELATIVE type).
    @Test func mips64LittleEndianRelocationsAreDecoded() throws {
        let triple = "mips64el-linux-gnuabi64"
        #expect(try Self.oddTriples().contains(triple), "install binutils-\(triple) (scripts/setup)")
        let library = try Self.audit("\(triple)/libcross.so")
        // table (3 local pointers, dep_function, dep_data) and 2 init_array slots; one R_MIPS_NONE.
        #expect(library.relocations.relative == 3)
        #expect(library.relocations.symbolic == 4)
        #expect(library.relocations.none == 1)
        #expect(library.initializers.entries.compactMap(\.symbol) == ["ctor_one", "ctor_two"])
    }

    @Test func sparcRelocationsAreClassified() throws {
        let triple = "sparc64-linux-gnu"
        #expect(try Self.oddTriples().contains(triple), "install binutils-\(triple) (scripts/setup)")
        let library = try Self.audit("\(triple)/libcross.so")
        #expect(library.relocations.relative == 3)
        #expect(library.relocations.symbolic == 4)
        let app = try Self.audit("\(triple)/app")
        #expect(app.relocations.plt == 1)
        #expect(app.relocations.symbolic == 1)
    }
}
