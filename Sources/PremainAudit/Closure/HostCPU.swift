import PremainModel

#if canImport(Glibc)
import Glibc
#endif

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
            let text = String(cString: line)
            if text.hasPrefix("flags") || text.hasPrefix("Features") {
                let value = text.split(separator: ":", maxSplits: 1).dropFirst().first ?? ""
                return Set(value.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init))
            }
        }
        return []
    }()

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
