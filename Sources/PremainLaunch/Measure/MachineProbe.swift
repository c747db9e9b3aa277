import CTrace
import Glibc
import PremainAudit
import PremainModel
import PremainSystem

/// Reads the machine's side of `LaunchConditions`: kernel, CPU, governor, load, glibc, date.
public enum MachineProbe {
    /// Fills the machine fields; the caller supplies the series' own.
    public static func conditions(pinning: CPUPinning, runs: Int, warmup: Int, cold: Bool,
                                  binaryPath: String, buildID: String?, environmentOverrides: [String],
                                  stdin: String = "/dev/null") -> LaunchConditions {
        LaunchConditions(
            kernel: kernel(), cpuModel: cpuModel(), onlineCPUs: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
            allowedCPUs: CPUPinning.allowedCPUs(),
            frequencyGovernor: governor(cpu: pinning.targetCPU ?? 0), loadAverage1m: loadAverage(),
            glibcVersion: String(cString: gnu_get_libc_version()), pinning: pinning, runs: runs,
            warmup: warmup, cold: cold, binaryPath: binaryPath, buildID: buildID,
            environmentOverrides: environmentOverrides, stdin: stdin, date: utcDate())
    }

    /// `release version` from uname(2).
    public static func kernel() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "unknown" }
        let release = withUnsafeBytes(of: names.release) { Self.cString($0) }
        let version = withUnsafeBytes(of: names.version) { Self.cString($0) }
        return "\(release) \(version)"
    }

    /// The first `model name` of /proc/cpuinfo; `nil` when there is none.
    public static func cpuModel() -> String? {
        guard let text = LocalFiles.readText("/proc/cpuinfo") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return String(line[line.index(after: colon)...].trimmingBlanks())
            }
        }
        return nil
    }

    /// The cpufreq governor of `cpu`; `nil` when not exposed.
    public static func governor(cpu: Int) -> String? {
        LocalFiles.readText("/sys/devices/system/cpu/cpu\(cpu)/cpufreq/scaling_governor")
            .map { String(Substring($0).trimmingBlanks()) }
    }

    /// The one-minute load average from /proc/loadavg; `nil` when unreadable.
    public static func loadAverage() -> Double? {
        LocalFiles.readText("/proc/loadavg")?.split(separator: " ").first.flatMap { Double($0) }
    }

    /// Now as `YYYY-MM-DDThh:mm:ssZ`.
    public static func utcDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    static func cString(_ raw: UnsafeRawBufferPointer) -> String {
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
}
