import ELFKit
import ELFValues
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
    public static func forTarget(
        elfClass: ELFClass, machine: ELFMachine,
        cpuFlags: Set<String> = HostCPU.flags
    ) -> LoaderPlatform {
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
            subdirectories =
                hwcaps.map { "glibc-hwcaps/\($0)" }
                + ["tls/x86_64/x86_64", "tls/x86_64", "tls", "x86_64/x86_64", "x86_64"]
        }
        return LoaderPlatform(
            elfClass: elfClass, machine: machine, triplet: triplet,
            defaultDirectories: directories, cacheFlags: flags,
            libToken: triplet.map { "lib/\($0)" } ?? (is64 ? "lib64" : "lib"),
            platformToken: platform, searchSubdirectories: subdirectories,
            hwcapsPriority: hwcaps)
    }
}

extension LoaderPlatform {
    /// The loader of the machine premain runs on (uname(2)'s machine name), or `nil` when the
    /// name is not one this reader knows.
    public static let host: LoaderPlatform? = {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        let machine = withUnsafeBytes(of: &names.machine) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let known: [String: (ELFClass, ELFMachine)] = [
            "x86_64": (.elf64, .x86_64), "i686": (.elf32, .i386), "i386": (.elf32, .i386),
            "aarch64": (.elf64, .aarch64), "armv7l": (.elf32, .arm), "armv8l": (.elf32, .arm),
            "riscv64": (.elf64, .riscv), "ppc64le": (.elf64, .ppc64), "ppc64": (.elf64, .ppc64),
            "s390x": (.elf64, .s390), "mips64": (.elf64, .mips), "loongarch64": (.elf64, .loongarch),
            "sparc64": (.elf64, .sparcv9),
        ]
        guard let (elfClass, elfMachine) = known[machine] else { return nil }
        return forTarget(elfClass: elfClass, machine: elfMachine)
    }()
}

/// The CPU this process runs on, from `/proc/cpuinfo`.
public enum HostCPU {
    /// The `flags` of the first processor; empty when `/proc/cpuinfo` is unreadable.
    public static let flags: Set<String> = {
        guard let file = fopen("/proc/cpuinfo", "r") else { return [] }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0 {
            guard let line else { break }
            if let flags = flags(inLine: String(cString: line)) { return flags }
        }
        return []
    }()

    /// The flags a `/proc/cpuinfo` line lists when it is the `flags` (x86) or `Features` (Arm)
    /// line; `nil` for another line. Split by bytes: the line holds a hundred flags, and
    /// splitting it by Characters cost every audit 0.4 M instructions.
    static func flags(inLine text: String) -> Set<String>? {
        guard text.hasPrefix("flags") || text.hasPrefix("Features") else { return nil }
        let bytes = Array(text.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return [] }
        let blank = { (byte: UInt8) in byte == 0x20 || byte == 0x0a || byte == 0x09 }
        return Set(bytes[(colon + 1)...].split(whereSeparator: blank).map { String(decoding: $0, as: UTF8.self) })
    }

    /// The x86-64 micro-architecture levels (2, 3, 4) the flags support, ascending; level 1 is
    /// the baseline and has no subdirectory.
    public static func x86_64Levels(_ flags: Set<String>) -> [Int] {
        let v2: Set<String> = ["cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"]
        let v3: Set<String> = ["avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave"]
        let v4: Set<String> = ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]
        var levels: [Int] = []
        guard v2.isSubset(of: flags) else { return levels }
        levels.append(2)
        guard v3.isSubset(of: flags) else { return levels }
        levels.append(3)
        guard v4.isSubset(of: flags) else { return levels }
        levels.append(4)
        return levels
    }
}

/// Dynamic string tokens in `DT_RPATH`, `DT_RUNPATH` and `DT_NEEDED` (glibc `elf/dl-load.c`,
/// `_dl_dst_substitute`): `$ORIGIN`, `$LIB`, `$PLATFORM`, each also written `${NAME}`.
///
/// A bare token ends where the next character is not a letter, digit or underscore. Unknown
/// `$NAME`s are kept as written, like glibc does.
public enum DynamicStringTokens {
    /// `text` with every token replaced, or `nil` when it uses `$ORIGIN` and `origin` is
    /// unknown (glibc then drops the search-path element).
    public static func expand(_ text: String, origin: String?, lib: String, platform: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return text }
        let chars = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(chars.count + 32)
        var index = 0
        while index < chars.count {
            guard chars[index] == UInt8(ascii: "$") else {
                out.append(chars[index])
                index += 1
                continue
            }
            var matched = false
            for (name, value) in [("ORIGIN", origin), ("PLATFORM", Optional(platform)), ("LIB", Optional(lib))] {
                guard let length = tokenLength(chars, at: index + 1, name: name) else { continue }
                guard let value else { return nil }
                out.append(contentsOf: Array(value.utf8))
                index += 1 + length
                matched = true
                break
            }
            if !matched {
                out.append(chars[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes the token `name` takes at `start` (after the `$`), or `nil` when it is not there.
    static func tokenLength(_ chars: [UInt8], at start: Int, name: String) -> Int? {
        let token = Array(name.utf8)
        if start < chars.count, chars[start] == UInt8(ascii: "{") {
            let end = start + 1 + token.count
            guard end < chars.count, Array(chars[(start + 1)..<end]) == token,
                chars[end] == UInt8(ascii: "}")
            else { return nil }
            return token.count + 2
        }
        let end = start + token.count
        guard end <= chars.count, Array(chars[start..<end]) == token else { return nil }
        if end < chars.count {
            let next = chars[end]
            let isWord =
                (next >= 0x30 && next <= 0x39) || (next >= 0x41 && next <= 0x5a)
                || (next >= 0x61 && next <= 0x7a) || next == 0x5f
            if isWord { return nil }
        }
        return token.count
    }
}
