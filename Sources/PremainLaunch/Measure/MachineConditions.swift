import CTrace
import Glibc
import PremainModel
import PremainSystem

/// Reads the machine's side of `LaunchConditions`: kernel, CPU, governor, load, glibc, date.
public enum MachineProbe {
    /// Fills the machine fields; the caller supplies the series' own.
    public static func conditions(
        pinning: CPUPinning, runs: Int, warmup: Int, cold: Bool,
        binaryPath: String, buildID: String?, environmentOverrides: [String],
        stdin: String = "/dev/null"
    ) -> LaunchConditions {
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

    /// The hardware name from uname(2) (`x86_64`, `aarch64`); `nil` when uname fails.
    public static func machine() -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        return withUnsafeBytes(of: names.machine) { Self.cString($0) }
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

    /// The sum over online CPUs of the kernel's thermal throttling events
    /// (`thermal_throttle/core_throttle_count`); `nil` where the kernel does not expose them
    /// (most virtual machines).
    public static func throttleEvents() -> Int? {
        let cpus = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var total: Int?
        for cpu in 0..<max(0, cpus) {
            guard
                let text = LocalFiles.readText(
                    "/sys/devices/system/cpu/cpu\(cpu)/thermal_throttle/core_throttle_count", limit: 64),
                let count = Int(Substring(text).trimmingBlanks())
            else { continue }
            total = (total ?? 0) + count
        }
        return total
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

/// Reading and applying CPU affinity for a `CPUPinning` plan.
extension CPUPinning {
    /// CPUs this thread may run on, ascending. `[]` when the mask cannot be read.
    public static func allowedCPUs() -> [Int] {
        var cpus = [Int32](repeating: -1, count: 1024)
        let count = ctrace_allowed_cpu_list(&cpus, Int32(cpus.count))
        guard count > 0 else { return [] }
        return cpus.prefix(Int(count)).map(Int.init)
    }

    /// The plan for this machine's allowed CPUs (see `plan(requested:allowed:)`).
    public static func plan(requested: Bool) -> CPUPinning {
        plan(requested: requested, allowed: allowedCPUs())
    }

    /// Runs `body` with the calling thread pinned to `measurerCPU` (when pinned), then restores
    /// the thread's previous CPU mask.
    public func withMeasurerPinned<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        guard pinned, let cpu = measurerCPU else { return try body() }
        let saved = Self.allowedCPUs().map(Int32.init)
        _ = ctrace_pin_self(Int32(cpu))
        defer { if !saved.isEmpty { _ = ctrace_set_cpus_self(saved, Int32(saved.count)) } }
        return try body()
    }
}

/// Real-time priority for the measuring thread while a series runs. The measurer sleeps in
/// `poll` almost all the time; with `SCHED_FIFO` it preempts ordinary work on its CPU the moment
/// a loader line arrives, so other processes (a compiler on a shared machine) cannot delay the
/// time stamps by a scheduler tick or more. `SCHED_RESET_ON_FORK` makes the target start as an
/// ordinary `SCHED_OTHER` process. Needs CAP_SYS_NICE (root); without it nothing changes.
public enum MeasurerScheduling {
    static let priority: Int32 = 50
    static let resetOnFork: Int32 = 0x4000_0000  // SCHED_RESET_ON_FORK

    /// Runs `body` with the calling thread at SCHED_FIFO when `requested` and permitted, then
    /// restores SCHED_OTHER. Also returns a description of what was used, for the conditions.
    public static func run<R, E: Error>(requested: Bool, _ body: () throws(E) -> R) throws(E) -> (R, String) {
        guard requested else {
            return (try body(), "SCHED_OTHER (real-time measurer disabled)")
        }
        var parameters = sched_param(sched_priority: priority)
        guard sched_setscheduler(0, Int32(SCHED_FIFO) | resetOnFork, &parameters) == 0 else {
            let why = String(cString: strerror(errno))
            return (try body(), "SCHED_OTHER (SCHED_FIFO refused: \(why))")
        }
        defer {
            var normal = sched_param(sched_priority: 0)
            _ = sched_setscheduler(0, Int32(SCHED_OTHER), &normal)
        }
        return (
            try body(),
            "SCHED_FIFO priority \(priority) for the measurer only (reset on fork: the target runs SCHED_OTHER)"
        )
    }
}

/// Holds the kernel's PM QoS CPU latency request at 0 µs (`/dev/cpu_dma_latency`) while a
/// series runs, so idle CPUs poll instead of halting. In a VM a halted vCPU takes tens of
/// microseconds or more to wake, which delayed the stamp of the first loader line after a long
/// initializer by about 0.1 ms; a polling CPU also needs no wake-up interrupt, which makes each
/// loader line cheaper for the target. The request lasts while the file is open and applies to
/// every CPU, for the instrumented and the uninstrumented series alike. Needs root.
public enum IdleLatencyGuard {
    /// Runs `body` with the request held when `requested` and permitted. Also returns what was
    /// done, for the conditions.
    public static func run<R, E: Error>(requested: Bool, _ body: () throws(E) -> R) throws(E) -> (R, String) {
        guard requested else { return (try body(), "not held (disabled)") }
        let fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else {
            // The reason is taken now: `body` runs a whole series and leaves errno at anything.
            let reason = notHeld(errno)
            return (try body(), reason)
        }
        defer { close(fd) }
        var zero: Int32 = 0
        let written = withUnsafeBytes(of: &zero) { write(fd, $0.baseAddress, $0.count) }
        guard written == MemoryLayout<Int32>.size else {
            let reason = "not held (write to /dev/cpu_dma_latency: \(String(cString: strerror(errno))))"
            return (try body(), reason)
        }
        return (try body(), "held at 0 µs: idle CPUs poll instead of halting")
    }

    /// Why the request could not be made, from `open`'s errno.
    static func notHeld(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: return "not held (/dev/cpu_dma_latency needs root: \(String(cString: strerror(code))))"
        case ENOENT: return "not held (this kernel has no /dev/cpu_dma_latency)"
        default: return "not held (/dev/cpu_dma_latency: \(String(cString: strerror(code))))"
        }
    }
}
