import ELFKit
import PremainModel

/// Tells which linker made a file and in which languages it was written, from what the file
/// keeps: gold's version note, the `.comment` strings of compilers and linkers, the Swift
/// metadata sections and the runtimes it needs.
public enum ToolchainDetector {
    /// The toolchain of `file`, whose `DT_NEEDED` names are `needed`.
    public static func detect(_ file: ELFFile, needed: [String]) -> BuildToolchain {
        let comments = file.commentStrings
        let (linker, version, evidence) = linker(goldNote: file.goldVersion, comments: comments)
        let autolink = file.swiftAutolinkEntries
        // Every Swift section name starts "swift5_": the rest are passed over on that prefix.
        let swift =
            !autolink.isEmpty || needed.contains { SwiftToolchainLibraries.isRuntime($0) }
            || file.sections.contains { section in
                // The first byte first: nearly every other name starts with ".".
                section.name.utf8.first == UInt8(ascii: "s")
                    && (SwiftSuspects.isMetadataSection(section.name) || section.name == "swift5_entry")
            }
        let cxx = needed.contains { $0.hasPrefix("libstdc++.so") || $0.hasPrefix("libc++.so") }
        var languages: [BuildToolchain.Language] = []
        if swift { languages.append(.swift) }
        if cxx { languages.append(.cxx) }
        if languages.isEmpty { languages.append(.c) }
        return BuildToolchain(
            linker: linker, linkerVersion: version, evidence: evidence, languages: languages,
            comments: comments, autolinkEntries: autolink)
    }

    /// The linker told by gold's note or by the `.comment` strings: "Linker: LLD 21.0.0",
    /// "mold 2.4.0 (…)", "GNU gold (…) 1.16", "GNU ld (…) 2.40". A `.comment` naming compilers
    /// only means GNU ld, which adds no string of its own.
    public static func linker(goldNote: String?, comments: [String])
        -> (BuildToolchain.Linker, String?, BuildToolchain.Evidence)
    {
        if let goldNote {
            return (.gold, lastWord(of: goldNote), .goldNote)
        }
        for comment in comments {
            if comment.hasPrefix("Linker: LLD ") {
                return (.lld, word(after: "Linker: LLD ", in: comment), .comment)
            }
            if comment.hasPrefix("mold ") {
                return (.mold, word(after: "mold ", in: comment), .comment)
            }
            if comment.hasPrefix("GNU gold") || comment.hasPrefix("gold ") {
                return (.gold, lastWord(of: comment), .comment)
            }
            if comment.hasPrefix("GNU ld") {
                return (.gnuLD, lastWord(of: comment), .comment)
            }
        }
        return comments.isEmpty ? (.unknown, nil, .none) : (.gnuLD, nil, .commentWithoutLinker)
    }

    /// The first space-separated word after `prefix` when it starts with a digit.
    static func word(after prefix: String, in text: String) -> String? {
        let rest = text.dropFirst(prefix.count)
        let word = rest.prefix { $0 != " " }
        return word.first?.isNumber == true ? String(word.prefix(32)) : nil
    }

    /// The last space-separated word when it starts with a digit ("GNU gold (…) 1.16" → "1.16").
    static func lastWord(of text: String) -> String? {
        guard let word = text.split(separator: " ").last, word.first?.isNumber == true else { return nil }
        return String(word.prefix(32))
    }
}

/// The libraries of the Swift toolchain that the Swift driver links by itself (autolinking:
/// every Swift module names its runtime libraries in `.swift1_autolink_entries`) and that no
/// link line of a package lists. "Remove it from the link line" is no advice for them.
public enum SwiftToolchainLibraries {
    /// Sonames of toolchain libraries that are not `libswift*`.
    static let otherNames: Set<String> = [
        "libdispatch.so", "libBlocksRuntime.so", "libFoundation.so", "libFoundationEssentials.so",
        "libFoundationInternationalization.so", "libFoundationNetworking.so", "libFoundationXML.so",
        "lib_FoundationICU.so", "lib_FoundationCollections.so", "libXCTest.so", "libTesting.so",
        "lib_TestingInterop.so", "lib_Testing_Foundation.so",
    ]

    /// `true` for a library of the Swift toolchain: `libswift*.so` and the corelibs
    /// (Foundation, Dispatch, XCTest, Testing), by file name or soname.
    public static func contains(_ name: String) -> Bool {
        let file = fileName(name)
        return file.hasPrefix("libswift") && file.hasSuffix(".so") || otherNames.contains(file)
    }

    /// glibc libraries every Swift object asks for through the Glibc module's autolink entries
    /// ("-lm", "-ldl", "-lpthread", "-lutil").
    static let glibcAutolinked: Set<String> = ["libm.so.6", "libdl.so.2", "libpthread.so.0", "libutil.so.1"]

    /// `true` for a library the Swift driver links into every Swift program by itself: the
    /// toolchain's and the glibc libraries of the Glibc module.
    public static func isAutolinked(_ name: String) -> Bool {
        contains(name) || glibcAutolinked.contains(fileName(name))
    }

    /// `true` for the Swift runtime itself (`libswiftCore.so`): a file that needs it is Swift.
    public static func isRuntime(_ name: String) -> Bool { fileName(name) == "libswiftCore.so" }

    /// What removes `name` from a Swift program's dependencies, or `nil` for a library that is
    /// not the toolchain's. The Swift driver links these whether or not the code uses them.
    public static func howToDrop(_ name: String) -> String? {
        let file = fileName(name)
        if glibcAutolinked.contains(file) {
            return "every Swift object asks for it through the Glibc module's autolink entries, so no Swift link "
                + "line can drop it; libswiftCore.so needs libm.so.6 anyway, and the others are small parts of glibc: "
                + "nothing to do"
        }
        guard contains(file) else { return nil }
        let statically = staticAlternative
        switch file {
        case "libswift_StringProcessing.so", "libswift_RegexParser.so":
            return "the Swift driver links it for _StringProcessing, which every Swift module imports implicitly and "
                + "Foundation(Essentials) needs; it goes only when no module imports Foundation or FoundationEssentials "
                + "and all are built with -Xfrontend -disable-implicit-string-processing-module-import, \(statically)"
        case "libswift_Concurrency.so", "libdispatch.so", "libBlocksRuntime.so", "libswiftDispatch.so":
            return "the Swift driver links it for Swift concurrency (which needs Dispatch) and `import Dispatch`; it "
                + "goes only with -Xfrontend -disable-implicit-concurrency-module-import and no such import, \(statically)"
        case "libFoundation.so", "libFoundationNetworking.so", "libFoundationXML.so",
            "libFoundationInternationalization.so", "lib_FoundationICU.so":
            return "it comes with `import Foundation` (or FoundationNetworking, FoundationXML): import "
                + "FoundationEssentials where the code needs only its types, \(statically)"
        case "libFoundationEssentials.so":
            return "it comes with `import Foundation` or `import FoundationEssentials`: drop the import from the "
                + "modules that do not need it, \(statically)"
        case "libswiftCore.so":
            return "it is the Swift runtime: only static linking removes it: \(statically)"
        default:
            return "the Swift driver links it for a module that imports it: drop that import, \(statically)"
        }
    }

    static func fileName(_ name: String) -> String {
        // Most names are bare sonames: without a "/" byte there is no "/" Character to split on
        // (a split by Character costs a grapheme break test per character).
        guard name.utf8.withContiguousStorageIfAvailable({ $0.contains(UInt8(ascii: "/")) }) ?? true else {
            return name
        }
        return name.split(separator: "/").last.map(String.init) ?? name
    }

    /// The end of every `howToDrop` text but the glibc ones: static linking.
    public static let staticAlternative =
        "or build with swift build --static-swift-stdlib (swiftc -static-stdlib), "
        + "which links the toolchain into the program: its loading and relocation go, its code stays"
}
