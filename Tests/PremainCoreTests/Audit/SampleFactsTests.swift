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

/// The facts samples/README.md promises, as `premain audit` sees them.
@Suite struct SampleFactsTests {
    func audit(_ sample: String, symbols: Bool = false) throws -> BinaryInventory {
        try InventoryBuilder.audit(path: try Samples.path(sample), options: InventoryOptions(symbolLists: symbols))
    }

    @Test func cHelloNeedsOnlyLibc() throws {
        let hello = try audit("c-hello/c-hello")
        #expect(hello.needed == ["libc.so.6"])
        #expect(hello.header.kind == .pieExecutable)
        #expect(hello.initializers.own == 0)
        let statik = try audit("c-hello/c-hello-static")
        #expect(statik.header.kind == .executable)
        #expect(statik.header.interpreter == nil)
        #expect(statik.needed.isEmpty)
    }

    @Test func cxxLibraryInitializersAreNamedWithTheirTranslationUnits() throws {
        let library = try audit("cxx-static-init/libinit.so", symbols: true)
        #expect(library.needed == ["libstdc++.so.6", "libc.so.6"])
        let arrayEntries = library.initializers.entries.filter { $0.source == .initArray }
        #expect(
            arrayEntries.map(\.symbol) == [
                "frame_dummy", "_GLOBAL__sub_I_registry.cpp",
                "_GLOBAL__sub_I_plugins.cpp", "premain_lib_ctor_c",
            ])
        #expect(arrayEntries.map(\.translationUnit) == [nil, "registry.cpp", "plugins.cpp", nil])
        #expect(
            arrayEntries.map(\.kind) == [.toolchain, .cxxTranslationUnit, .cxxTranslationUnit, .constructorFunction])
        // Slot 3 is 0 in the file: the exported constructor is reached through R_X86_64_64.
        #expect(arrayEntries[3].resolution == .symbolRelocation)
        #expect(library.initializers.own == 3)
        #expect(library.symbols.importedNames?.contains { $0.hasPrefix("_ZNSt8ios_base4InitC1Ev") } == true)
    }

    /// Distributions strip libraries and ship `.symtab` in a debug file found by build ID: the
    /// initializers are named from there, so `frame_dummy` counts as the toolchain's (and no
    /// DWARF is opened for it). A debug file of another build is not used.
    @Test func strippedLibraryInitializersAreNamedFromTheDebugFilesSymbolTable() throws {
        let folder = TemporaryFolders.root + "/premain-debugsyms-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let library = folder + "/libinit.so"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: try Samples.path("cxx-static-init/libinit.so"), toPath: library)
        let id = try #require(try ELFFile(path: library).buildID)
        let debugFolder = "\(folder)/debug/.build-id/\(id.prefix(2))"
        try FileManager.default.createDirectory(atPath: debugFolder, withIntermediateDirectories: true)
        let debugFile = "\(debugFolder)/\(id.dropFirst(2)).debug"
        #expect(try Shell.run(["objcopy", "--only-keep-debug", library, debugFile]).status == 0)
        #expect(try Shell.run(["strip", "--strip-all", library]).status == 0)

        func entries(_ directories: [String]) throws -> [InitializerInfo] {
            let options = InventoryOptions(debugLocator: DebugFileLocator(extraDirectories: directories))
            return try InventoryBuilder.audit(path: library, options: options).initializers.entries
                .filter { $0.source == .initArray }
        }
        let named = try entries([folder + "/debug"])
        #expect(
            named.map(\.symbol) == [
                "frame_dummy", "_GLOBAL__sub_I_registry.cpp", "_GLOBAL__sub_I_plugins.cpp",
                "premain_lib_ctor_c",
            ])
        #expect(named.map(\.kind) == [.toolchain, .cxxTranslationUnit, .cxxTranslationUnit, .constructorFunction])
        // Without the debug file only the exported constructor has a name (from .dynsym).
        let bare = try entries([folder + "/nowhere"]).map(\.symbol)
        if !FileManager.default.fileExists(atPath: "/usr/lib/debug/.build-id/\(id.prefix(2))/\(id.dropFirst(2)).debug")
        {
            #expect(bare == [nil, nil, nil, "premain_lib_ctor_c"])
        }
        // A debug file whose build ID differs names nothing.
        #expect(try Shell.run(["objcopy", "--remove-section=.note.gnu.build-id", debugFile]).status == 0)
        #expect(try entries([folder + "/debug"]).map(\.symbol) == bare)
    }

    /// Where a debug file is looked for, in order: by build ID, then by `.gnu_debuglink` next
    /// to the file, in `.debug`, and under each debug directory (the file's folder as given and
    /// as resolved through symlinks).
    @Test func debugFilesAreLookedForByBuildIDThenByDebugLink() throws {
        let root = TemporaryFolders.root + "/premain-debuglink-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: root + "/real")
        let library = root + "/real/libinit.so"
        try FileManager.default.copyItem(atPath: try Samples.path("cxx-static-init/libinit.so"), toPath: library)
        try "debug".write(toFile: root + "/libinit.debug", atomically: true, encoding: .utf8)
        #expect(
            try Shell.run(["objcopy", "--strip-debug", "--add-gnu-debuglink=" + root + "/libinit.debug", library])
                .status == 0)
        let file = try ELFFile(path: root + "/alias/libinit.so")
        let id = try #require(file.buildID)
        let debug = root + "/debug"
        let locator = DebugFileLocator(extraDirectories: [debug])
        let split = id.index(id.startIndex, offsetBy: 2)
        #expect(
            locator.candidates(for: file) == [
                "\(debug)/.build-id/\(id[..<split])/\(id[split...]).debug",
                "/usr/lib/debug/.build-id/\(id[..<split])/\(id[split...]).debug",
                "\(root)/alias/libinit.debug", "\(root)/alias/.debug/libinit.debug",
                "\(debug)/libinit.debug", "\(debug)\(root)/alias/libinit.debug", "\(debug)\(root)/real/libinit.debug",
                "/usr/lib/debug/libinit.debug", "/usr/lib/debug\(root)/alias/libinit.debug",
                "/usr/lib/debug\(root)/real/libinit.debug",
            ])
        #expect(locator.debugFile(for: file) == nil)
        // Found in the folder of the resolved path under the debug directory (made after a miss:
        // a new locator, as each audit run has its own).
        try FileManager.default.createDirectory(atPath: debug + root + "/real", withIntermediateDirectories: true)
        try "debug".write(toFile: debug + root + "/real/libinit.debug", atomically: true, encoding: .utf8)
        #expect(
            DebugFileLocator(extraDirectories: [debug]).debugFile(for: file) == debug + root + "/real/libinit.debug")
    }

    @Test func translationUnitsAreReadFromPlainAndPriorityNames() {
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_registry.cpp") == "registry.cpp")
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_00101_0_main.cpp") == "main.cpp")
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_65535_0_a_b.cc") == "a_b.cc")
        // Not the priority form (four digits, letters, one underscore): the name as it stands.
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_0101_0_x.cpp") == "0101_0_x.cpp")
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_00101_x_y.cpp") == "00101_x_y.cpp")
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_00101_0") == "00101_0")
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_00101_0_") == nil)
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_") == nil)
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_D_x.cpp") == nil)
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_ü.cpp") == "ü.cpp")
    }

    @Test func cxxExecutableRunsItsPriorityConstructorFirst() throws {
        let executable = try audit("cxx-static-init/cxx-static-init")
        #expect(executable.needed == ["libinit.so", "libc.so.6"])
        #expect(executable.dynamic.runpath == ["$ORIGIN"])
        #expect(
            executable.initializers.entries.filter { $0.source == .initArray }.map(\.symbol)
                == ["premain_exe_ctor_101", "frame_dummy", "_GLOBAL__sub_I_main"])
    }

    @Test func swiftSuspectsAreFoundAndDemangled() throws {
        for variant in ["swift-startup/swift-startup", "swift-startup/swift-startup-O"] {
            let swift = try #require(try audit(variant).swift, "\(variant)")
            let defaults = swift.defaultArguments.map(\.symbol)
            #expect(
                defaults.contains("$s12SwiftStartup13HomeViewModelC14summaryServiceAcA07SummaryG0C_tcfcfA_"),
                "\(variant)")
            #expect(
                swift.defaultArguments.contains {
                    $0.demangled?.hasPrefix("default argument 0 of SwiftStartup.HomeViewModel.init(summaryService:")
                        == true
                })
            #expect(swift.lazyGlobals.map(\.symbol).contains("$s12SwiftStartup11homeCatalog_WZ"))
            #expect(
                swift.lazyGlobals.contains {
                    $0.demangled == "one-time initialization function for SwiftStartup.homeCatalog"
                })
            #expect((swift.metadataSections["swift5_typeref"] ?? 0) > 0)
        }
        // DWARF places each suspect: the `let` and the initializer whose parameter has the default
        // (samples/swift-startup/main.swift lines 79 and 84; -Onone build with -g).
        let swift = try #require(try audit("swift-startup/swift-startup").swift)
        let global = try #require(swift.lazyGlobals.first { $0.symbol == "$s12SwiftStartup11homeCatalog_WZ" })
        #expect(global.location?.shortText == "main.swift:79")
        let argument = try #require(swift.defaultArguments.first { $0.symbol.contains("summaryService") })
        #expect(argument.location?.shortText == "main.swift:84")
        let unlocated = try InventoryBuilder.audit(
            path: try Samples.path("swift-startup/swift-startup"),
            options: InventoryOptions(sourceLines: false)
        ).swift
        #expect(unlocated?.lazyGlobals.allSatisfy { $0.location == nil } == true)
    }

    @Test func manyDepsNeedsThirtyLibrariesThenLibc() throws {
        let binary = try audit("many-deps/many-deps")
        #expect(binary.needed.count == 31)
        #expect(binary.needed.first == "libdep00.so")
        #expect(binary.needed.last == "libc.so.6")
    }

    @Test func hiddenVisibilityShrinksTheExportTable() throws {
        #expect(try audit("many-exports/libexports-default.so").symbols.exportedByType.function == 3000)
        let hidden = try audit("many-exports/libexports-hidden.so", symbols: true)
        #expect(hidden.symbols.exported == 10)
        #expect(hidden.symbols.exportedNames?.sorted().first == "premain_export_0000")
    }

    @Test func packedRelativeRelocationsCountTheSameAddresses() throws {
        let plain = try audit("relr/librelr-plain.so")
        let packed = try audit("relr/librelr-packed.so")
        #expect(plain.relocations.relative == 2003)
        #expect(plain.relocations.relrAddresses == 0)
        #expect(packed.relocations.relative == 2003)
        #expect(packed.relocations.relrAddresses == 2003)
        #expect(packed.relocations.tables.contains { $0.format == .relr && $0.entries == 34 })
    }

    @Test func closureSamplesCarryTheirSearchPaths() throws {
        #expect(try audit("closure/rpath-vs-runpath/use-rpath").dynamic.rpath.isEmpty == false)
        #expect(try audit("closure/rpath-vs-runpath/use-runpath").dynamic.runpath.isEmpty == false)
        #expect(try audit("closure/origin/bin/origin-app").dynamic.runpath == ["$ORIGIN/../lib"])
        #expect(try audit("closure/missing/needs-missing").needed.contains("libdoesnotexist.so"))
        let wrongClass = try audit("closure/wrong-class/lib32/libwc.so")
        #expect(wrongClass.header.elfClass == .elf32)
    }
}
