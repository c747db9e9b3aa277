import PremainAudit
import PremainModel

/// Linker options spelled for the toolchain that made a file: through the Swift driver and
/// SwiftPM for Swift code (`-Xlinker`), through the C compiler driver for C and C++ (`-Wl,`),
/// and for CMake (`target_link_options` with `LINKER:`). A linker that rejects an option
/// (gold and `-z pack-relative-relocs`) gets the switch to one that takes it.
public enum LinkerAdvice {
    /// How to link `toolchain`'s file with `-z pack-relative-relocs`. `nil` toolchain (a
    /// report written before premain recorded it) gets the compiler-driver form with the
    /// linkers that take it.
    public static func packRelativeRelocations(_ toolchain: BuildToolchain?) -> String {
        let option = ["-z", "pack-relative-relocs"]
        guard let toolchain else {
            return "link with \(compilerDriver(option)) (GNU ld 2.38+, lld 15+, mold; gold rejects it)"
        }
        let made = "\(toolchain.linkerDescription), which linked this file,"
        switch toolchain.linker.packsRelativeRelocations {
        case false?:
            if toolchain.isSwift {
                return "\(made) cannot pack them (it rejects -z pack-relative-relocs): link with lld, which ships "
                    + "with the Swift toolchain: \(swiftPM(option, useLLD: true)); swiftc \(swiftDriver(option, useLLD: true)); "
                    + "CMake \(cmake(option, switchTo: "-use-ld=lld"))"
            }
            return "\(made) cannot pack them (it rejects -z pack-relative-relocs): link with GNU ld 2.38+ or lld 15+ "
                + "instead: -fuse-ld=bfd (or -fuse-ld=lld) \(compilerDriver(option)); "
                + "CMake \(cmake(option, switchTo: "-fuse-ld=lld"))"
        case true?:
            if toolchain.isSwift {
                return "link with \(swiftPM(option, useLLD: false)); swiftc \(swiftDriver(option, useLLD: false)); "
                    + "CMake \(cmake(option, switchTo: nil))"
            }
            return "link with \(compilerDriver(option)) (\(toolchain.linkerDescription) made this file); "
                + "CMake \(cmake(option, switchTo: nil))"
        case nil:
            if toolchain.isSwift {
                return "link with \(swiftPM(option, useLLD: true)) (the Swift toolchain's default linker, gold, "
                    + "rejects the option; lld takes it)"
            }
            return "link with \(compilerDriver(option)) (GNU ld 2.38+, lld 15+, mold; gold rejects it)"
        }
    }

    /// "-Wl,-z,pack-relative-relocs": the form gcc and clang pass on.
    static func compilerDriver(_ option: [String]) -> String { "-Wl," + option.joined(separator: ",") }

    /// "-use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs": the form swiftc passes on.
    static func swiftDriver(_ option: [String], useLLD: Bool) -> String {
        (useLLD ? "-use-ld=lld " : "") + option.map { "-Xlinker " + $0 }.joined(separator: " ")
    }

    /// "swift build -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs".
    static func swiftPM(_ option: [String], useLLD: Bool) -> String {
        "swift build " + (useLLD ? "-Xswiftc -use-ld=lld " : "")
            + option.map { "-Xlinker " + $0 }.joined(separator: " ")
    }

    /// `target_link_options(<target> PRIVATE [switch] "LINKER:-z,pack-relative-relocs")`.
    static func cmake(_ option: [String], switchTo: String?) -> String {
        "target_link_options(<target> PRIVATE " + (switchTo.map { $0 + " " } ?? "")
            + "\"LINKER:" + option.joined(separator: ",") + "\")"
    }

    /// How to stop `program` from needing `library`, which it uses nothing from. For the Swift
    /// toolchain's own libraries, which the Swift driver links whatever the link line says,
    /// what really removes them; for others, `--as-needed` in the toolchain's spelling or
    /// dropping the library from the link line.
    public static func dropUnused(_ library: String, from program: String, toolchain: BuildToolchain?) -> String {
        let swift = toolchain?.isSwift ?? SwiftToolchainLibraries.contains(library)
        if swift, SwiftToolchainLibraries.isAutolinked(library), let how = SwiftToolchainLibraries.howToDrop(library) {
            let whose =
                SwiftToolchainLibraries.contains(library) ? "the Swift toolchain's" : "linked by the Swift driver"
            return "\(library) is \(whose), not on any link line you wrote: \(how)"
        }
        if toolchain?.isSwift == true {
            return "Remove \(library) from \(program)'s link line (SwiftPM: the linkerSettings or the module map "
                + "`link` that names it)"
        }
        return
            "Link \(program) with -Wl,--as-needed (CMake: target_link_options(<target> PRIVATE \"LINKER:--as-needed\")) "
            + "or remove \(library) from its link line"
    }
}
