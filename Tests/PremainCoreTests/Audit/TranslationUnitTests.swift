import Foundation
import PremainAudit
import PremainJudge
import PremainModel
import PremainTestSupport
import Testing

/// C++ translation-unit initializers named by their source file and the globals they construct
/// (samples/cxx-static-init, built with g++ and with clang++), as `premain audit` sees them.
@Suite struct TranslationUnitTests {
    func unit(_ sample: String, symbol: String, sourceLines: Bool = true) throws -> InitializerInfo {
        let binary = try InventoryBuilder.audit(
            path: try Samples.path(sample), options: InventoryOptions(sourceLines: sourceLines))
        return try #require(binary.initializers.entries.first { $0.symbol == symbol }, "\(symbol) in \(sample)")
    }

    @Test func gccUnitNamedAfterAFunctionIsNamedByItsSourceFile() throws {
        let startup = try unit("cxx-static-init/cxx-units", symbol: "_GLOBAL__sub_I__Z5FatalPKcz")
        #expect(startup.kind == .cxxTranslationUnit)
        // Relative to the folder the samples were compiled in (DW_AT_comp_dir).
        #expect(startup.sourceFile?.hasSuffix("cxx-static-init/startup.cpp") == true)
        #expect(startup.name == startup.sourceFile)
        #expect(startup.displayName == startup.sourceFile)
        let globals = try #require(startup.globals)
        #expect(globals.map(\.variable) == ["startupAliases"])
        #expect(globals.first?.location.shortText == "startup.cpp:38")
        #expect(globals.first?.constructor == "StartupAliases()")
        #expect(globals.first?.includedAt == nil)
    }

    @Test func clangUnitsAreNamedByTheirSourceFileToo() throws {
        let startup = try unit("cxx-static-init/cxx-units-clang", symbol: "_GLOBAL__sub_I_startup.cpp")
        #expect(startup.name?.hasSuffix("cxx-static-init/startup.cpp") == true)
        let global = try #require(startup.globals?.first)
        #expect(global.variable == "startupAliases")
        #expect(global.location.shortText == "startup.cpp:38")
        #expect(global.constructor == "(anonymous namespace)::StartupAliases::StartupAliases()")
        #expect(
            startup.globals?.map(\.text)
                == ["`startupAliases` ((anonymous namespace)::StartupAliases::StartupAliases(), startup.cpp:38)"])
    }

    @Test func withoutDWARFTheUnitIsNamedByItsFirstFunctionOrTheFileItsSymbolNames() throws {
        let startup = try unit(
            "cxx-static-init/cxx-units", symbol: "_GLOBAL__sub_I__Z5FatalPKcz", sourceLines: false)
        #expect(startup.sourceFile == nil)
        #expect(startup.globals == nil)
        #expect(startup.name == "the translation unit whose first function is `Fatal(char const*, ...)`")
        let clang = try unit(
            "cxx-static-init/cxx-units-clang", symbol: "_GLOBAL__sub_I_startup.cpp", sourceLines: false)
        #expect(clang.name == "startup.cpp")
        let main = try unit("cxx-static-init/cxx-static-init", symbol: "_GLOBAL__sub_I_main", sourceLines: false)
        #expect(main.name == "the translation unit whose first function is `main`")
    }

    @Test func iostreamInitIsListedAtTheUnitsIncludeLine() throws {
        let registry = try unit("cxx-static-init/libinit.so", symbol: "_GLOBAL__sub_I_registry.cpp")
        let globals = try #require(registry.globals)
        #expect(globals.map(\.variable) == ["std::__ioinit", "registry"])
        let ioinit = try #require(globals.first)
        #expect(ioinit.isIostreamInit)
        #expect(ioinit.location.shortText == "iostream:74")
        #expect(ioinit.includedAt?.shortText == "registry.cpp:10")
        #expect(globals.last?.location.shortText == "registry.cpp:21")
        let plugins = try unit("cxx-static-init/libinit.so", symbol: "_GLOBAL__sub_I_plugins.cpp")
        #expect(plugins.globals?.contains(where: \.isIostreamInit) == false)
    }

    @Test func iostreamFindingIsOnePerUnitAtItsInclude() throws {
        let input = try RuleSamples.input("cxx-static-init/libinit.so")
        let findings = RuleEngine().findings(input).filter { $0.rule == "iostream_static_initializer" }
        #expect(findings.count == 1)
        #expect(findings.first?.location?.shortText == "registry.cpp:10")
        // Named by the unit's file name: a fingerprint holds no path.
        #expect(findings.first?.subject.symbol == "#include <iostream> in registry.cpp")
        #expect(
            findings.first?.message.hasSuffix(
                "cxx-static-init/registry.cpp includes <iostream>, so libinit.so constructs std::ios_base::Init in its static initializers"
            ) == true)
    }

    /// GCC records `src/unit.cc` compiled from its checkout as file `unit.cc` in directory
    /// `src`, relative to `DW_AT_comp_dir`: the global's place is a path in the checkout, so
    /// SARIF and annotations can put the finding at its line (found on ninja's src/util.cc).
    @Test func aGlobalInASubfolderIsLocatedInTheCompilationFolder() throws {
        let folder = try TemporaryFolders.make("cxx-subfolder")
        try FileManager.default.createDirectory(atPath: folder + "/src", withIntermediateDirectories: true)
        let source = """
            #include <map>
            int First(int x) { return x + 1; }
            namespace {
            struct Table {
              Table() { for (int i = 0; i < 1000; ++i) entries[i * 7 % 1009] = i; }
              std::map<int, int> entries;
            };
            Table table;
            }  // namespace
            int main() { return First(0) - 1; }
            """
        try source.write(toFile: folder + "/src/unit.cc", atomically: true, encoding: .utf8)
        let built = try Shell.run(["g++", "-g", "-O1", "src/unit.cc", "-o", "tool"], in: folder)
        try #require(built.status == 0, "g++: \(built.stderr)")
        let binary = try InventoryBuilder.audit(path: folder + "/tool", options: InventoryOptions(sourceLines: true))
        let entry = try #require(binary.initializers.entries.first { $0.kind == .cxxTranslationUnit })
        #expect(entry.sourceFile == "src/unit.cc")
        let global = try #require(entry.globals?.first)
        #expect(global.variable == "(anonymous namespace)::table" || global.variable == "table")
        #expect(global.location.file == folder + "/src/unit.cc")
        #expect(global.location.line == 8)
    }

    @Test func prioritiesAreReadFromGCCAndClangNames() {
        #expect(InitializerClassifier.priority(of: "_GLOBAL__sub_I.00101_early") == 101)
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I.00101_early") == "early")
        #expect(InitializerClassifier.priority(of: "_GLOBAL__sub_I_00101_0_main.cpp") == 101)
        #expect(InitializerClassifier.priority(of: "_GLOBAL__I_000101") == 101)
        #expect(InitializerClassifier.priority(of: "_GLOBAL__sub_I_main.cpp") == nil)
        #expect(InitializerClassifier.priority(of: "_GLOBAL__I_0001x1") == nil)
        #expect(InitializerClassifier.priority(of: "_GLOBAL__sub_I.001_x") == nil)
    }

    /// Names that are not ASCII are read by `Character`s, as `hasPrefix` reads them: a mark
    /// that joins the last digit hides the priority; the byte tests never decide otherwise.
    @Test func prioritiesOfNamesThatAreNotASCII() {
        #expect(InitializerClassifier.priority(of: "_GLOBAL__sub_I_00101_0_m\u{e4}in.cpp") == 101)
        #expect(InitializerClassifier.priority(of: "_GLOBAL__sub_I_0010\u{0661}_0_x.cpp") == nil)
        #expect(InitializerClassifier.priority(of: "_GLOBAL__sub_I_00101\u{301}_0_x.cpp") == nil)
        #expect(InitializerClassifier.priority(of: "_GLOBAL__I_000101\u{301}") == nil)
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I_m\u{e4}in.cpp") == "m\u{e4}in.cpp")
        #expect(InitializerClassifier.translationUnit(of: "_GLOBAL__sub_I") == nil)
        #expect(InitializerClassifier.translationUnit(of: "main") == nil)
    }

    /// A keyed name is a file name when it holds a "." `Character` and is not mangled; a "."
    /// that a mark joins is no ".".
    @Test func fileNamesAreToldFromKeyedFunctions() {
        #expect(TranslationUnitName.isFileName("util.cc"))
        #expect(TranslationUnitName.isFileName("\u{e4}.cc"))
        #expect(!TranslationUnitName.isFileName("_Z5FatalPKcz"))
        #expect(!TranslationUnitName.isFileName("_Z5Fatal.cold"))
        #expect(!TranslationUnitName.isFileName("main"))
        #expect(!TranslationUnitName.isFileName("a.\u{301}cc"))
        #expect(TranslationUnitName.isFileName("a.\u{301}c.c"))
    }

    @Test func unitNamesAreShownRelativeToTheCompileDirectory() {
        #expect(TranslationUnitName.relative("/w/ninja/src/util.cc", to: "/w/ninja/build") == "src/util.cc")
        #expect(TranslationUnitName.relative("/w/ninja/src/util.cc", to: "/w/ninja") == "src/util.cc")
        #expect(TranslationUnitName.relative("src/util.cc", to: "/w/ninja") == "src/util.cc")
        #expect(TranslationUnitName.relative("/usr/src/a.cc", to: "/home/me") == "/usr/src/a.cc")
        #expect(TranslationUnitName.relative("/a.cc", to: "/") == "/a.cc")
        #expect(TranslationUnitName.isFileName("util.cc"))
        #expect(!TranslationUnitName.isFileName("_Z5FatalPKcz"))
        #expect(!TranslationUnitName.isFileName("main"))
    }
}
