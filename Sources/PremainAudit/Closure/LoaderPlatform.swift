import ELFKit
import PremainModel

#if canImport(Glibc)
import Glibc
#endif

/// What glibc's `ld.so` for one ELF class and machine was built with, on Debian (multiarch):
/// the default directories (`SYSTEM_DIRS`), the ld.so.cache flags it accepts
/// (`_DL_CACHE_DEFAULT_ID`, `_dl_cache_check_flags`), the `$LIB` and `$PLATFORM` expansions,
/// and the subdirectories it tries in each search-path directory (`glibc-hwcaps/x86-64-v3`,
/// the legacy `tls` and platform subdirectories).
public struct LoaderPlatform: Sendable, Equatable {
    public var elfClass: ELFClass
    public var machine: ELFMachine
    /// The Debian multiarch triplet (`x86_64-linux-gnu`), or `nil` for an unknown machine.
    public var triplet: String?
    /// Directories searched last, unless `DF_1_NODEFLIB`.
    public var defaultDirectories: [String]
    /// `_DL_CACHE_DEFAULT_ID`: the cache flags of a native library.
    public var cacheFlags: Int32
    /// `$LIB`.
    public var libToken: String
    /// `$PLATFORM` (`AT_PLATFORM`).
    public var platformToken: String
    /// Subdirectories tried before each search-path directory itself, best first; `""` (the
    /// directory itself) is implied last.
    public var searchSubdirectories: [String]
    /// `glibc-hwcaps` subdirectory names usable on this CPU, best first.
    public var hwcapsPriority: [String]

    /// `_dl_cache_check_flags`: x86-64, AArch64 and the other 64-bit ports accept only their
    /// own id; the generic rule (i386, ARM soft-float) accepts 1 (plain ELF) or 3 (libc6).
    public func acceptsCacheFlags(_ flags: Int32) -> Bool {
        if cacheFlags == 3 { return flags == 1 || flags == 3 }
        return flags == cacheFlags
    }

    /// The loader of `elfClass`/`machine`; the CPU capabilities come from this machine's
    /// `/proc/cpuinfo` (the audited program is assumed to run here).
    public static func forTarget(elfClass: ELFClass, machine: ELFMachine,
                                 cpuFlags: Set<String> = HostCPU.flags) -> LoaderPlatform {
        let is64 = elfClass == .elf64
        var triplet: String?
        var flags: Int32 = 3
        var platform = ""
        switch machine {
        case .x86_64:
            triplet = is64 ? "x86_64-linux-gnu" : "x86_64-linux-gnux32"
            flags = is64 ? 0x0303 : 0x0803
            platform = "x86_64"
        case .i386:
            triplet = "i386-linux-gnu"
            platform = "i686"
        case .aarch64:
            triplet = "aarch64-linux-gnu"
            flags = 0x0a03
            platform = "aarch64"
        case .arm:
            triplet = "arm-linux-gnueabihf"
            flags = 0x0903
            platform = "v7l"
        case .riscv:
            triplet = is64 ? "riscv64-linux-gnu" : nil
            flags = is64 ? 0x1003 : 3
            platform = "riscv64"
        case .ppc64:
            triplet = "powerpc64le-linux-gnu"
            flags = 0x0503
            platform = "power9"
        case .s390:
            triplet = is64 ? "s390x-linux-gnu" : nil
            flags = is64 ? 0x0403 : 3
            platform = "z13"
        default:
            triplet = nil
        }
        var directories: [String] = []
        if let triplet { directories += ["/lib/\(triplet)", "/usr/lib/\(triplet)"] }
        directories += ["/lib", "/usr/lib"]
        var subdirectories: [String] = []
        var hwcaps: [String] = []
        if machine == .x86_64 && is64 {
            hwcaps = HostCPU.x86_64Levels(cpuFlags).reversed().map { "x86-64-v\($0)" }
            // As glibc 2.36 prints them with LD_DEBUG=libs: hwcaps, then the legacy
            // tls/platform combinations.
            subdirectories = hwcaps.map { "glibc-hwcaps/\($0)" }
                + ["tls/x86_64/x86_64", "tls/x86_64", "tls", "x86_64/x86_64", "x86_64"]
        }
        return LoaderPlatform(elfClass: elfClass, machine: machine, triplet: triplet,
                              defaultDirectories: directories, cacheFlags: flags,
                              libToken: triplet.map { "lib/\($0)" } ?? (is64 ? "lib64" : "lib"),
                              platformToken: platform, searchSubdirectories: subdirectories,
                              hwcapsPriority: hwcaps)
    }
}
