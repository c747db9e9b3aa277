/// The conditions a measurement was taken under, carried by every result so that a figure is
/// never read without them. Shared by `measure` and `trace`.
public struct LaunchConditions: Codable, Equatable, Sendable {
    /// `uname -r`, then `uname -v`.
    public var kernel: String
    /// `model name` from /proc/cpuinfo; `nil` when absent.
    public var cpuModel: String?
    /// Online CPUs (`sysconf(_SC_NPROCESSORS_ONLN)`).
    public var onlineCPUs: Int
    /// CPUs premain may run on (its affinity mask).
    public var allowedCPUs: [Int]
    /// cpufreq governor of the target's CPU; `nil` when /sys does not expose one (VMs).
    public var frequencyGovernor: String?
    /// One-minute load average when the measurement started.
    public var loadAverage1m: Double?
    /// `gnu_get_libc_version()` of premain itself (the system glibc).
    public var glibcVersion: String
    public var pinning: CPUPinning
    /// The measuring thread's scheduling policy during the series; `nil` when not recorded.
    public var measurerScheduling: String?
    /// The PM QoS CPU latency request during the series; `nil` when not recorded.
    public var cpuIdleLatency: String?
    public var runs: Int
    public var warmup: Int
    public var cold: Bool
    /// The executable as resolved (absolute path).
    public var binaryPath: String
    /// GNU build-id in hex; `nil` when the file has none or is not ELF.
    public var buildID: String?
    /// Environment variables premain set or removed for the target: "LD_DEBUG=files,statistics",
    /// "LD_DEBUG_OUTPUT=/old/path removed". Everything else is passed through unchanged.
    public var environmentOverrides: [String]
    /// Where the target's stdin came from.
    public var stdin: String
    /// ISO 8601, UTC, when the measurement started.
    public var date: String

    public init(
        kernel: String, cpuModel: String?, onlineCPUs: Int, allowedCPUs: [Int],
        frequencyGovernor: String?, loadAverage1m: Double?, glibcVersion: String,
        pinning: CPUPinning, runs: Int, warmup: Int, cold: Bool, binaryPath: String,
        buildID: String?, environmentOverrides: [String], stdin: String, date: String
    ) {
        self.kernel = kernel
        self.cpuModel = cpuModel
        self.onlineCPUs = onlineCPUs
        self.allowedCPUs = allowedCPUs
        self.frequencyGovernor = frequencyGovernor
        self.loadAverage1m = loadAverage1m
        self.glibcVersion = glibcVersion
        self.pinning = pinning
        self.runs = runs
        self.warmup = warmup
        self.cold = cold
        self.binaryPath = binaryPath
        self.buildID = buildID
        self.environmentOverrides = environmentOverrides
        self.stdin = stdin
        self.date = date
    }

    enum CodingKeys: String, CodingKey {
        case kernel, cpuModel, onlineCPUs, allowedCPUs, frequencyGovernor, loadAverage1m, glibcVersion, pinning,
            measurerScheduling, cpuIdleLatency, runs, warmup, cold, binaryPath, buildID, environmentOverrides, stdin,
            date
    }

    /// Reads conditions as reports write them. Conditions describe a measurement and decide
    /// nothing, so a field that is absent or of another shape (a hand-written or older report)
    /// reads as its empty value ("", 0, `[]`, `nil`, not pinned) instead of failing the report.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func read<T: Decodable>(_ key: CodingKeys, _ empty: T) -> T {
            (try? container.decodeIfPresent(T.self, forKey: key)) ?? empty
        }
        func optional<T: Decodable>(_ key: CodingKeys) -> T? {
            try? container.decodeIfPresent(T.self, forKey: key)
        }
        self.init(
            kernel: read(.kernel, ""), cpuModel: optional(.cpuModel), onlineCPUs: read(.onlineCPUs, 0),
            allowedCPUs: read(.allowedCPUs, []), frequencyGovernor: optional(.frequencyGovernor),
            loadAverage1m: optional(.loadAverage1m), glibcVersion: read(.glibcVersion, ""),
            pinning: read(.pinning, CPUPinning(pinned: false, measurerCPU: nil, targetCPU: nil, reason: nil)),
            runs: read(.runs, 0), warmup: read(.warmup, 0), cold: read(.cold, false), binaryPath: read(.binaryPath, ""),
            buildID: optional(.buildID), environmentOverrides: read(.environmentOverrides, []), stdin: read(.stdin, ""),
            date: read(.date, ""))
        measurerScheduling = optional(.measurerScheduling)
        cpuIdleLatency = optional(.cpuIdleLatency)
    }
}

/// Which CPUs the measuring thread and the target run on. With two or more allowed CPUs they
/// get different ones, so the measurer is never queued behind the target and stamps loader
/// lines as they arrive (unpinned, the first lines arrived up to 4 ms late on the prototype).
public struct CPUPinning: Codable, Equatable, Sendable {
    /// True when both were pinned.
    public var pinned: Bool
    public var measurerCPU: Int?
    public var targetCPU: Int?
    /// Why there is no pinning, when there is none.
    public var reason: String?

    public init(pinned: Bool, measurerCPU: Int?, targetCPU: Int?, reason: String?) {
        self.pinned = pinned
        self.measurerCPU = measurerCPU
        self.targetCPU = targetCPU
        self.reason = reason
    }

    /// The plan for this machine: the last allowed CPU for the target, the one before it for
    /// the measurer; no pinning with fewer than two CPUs or when `requested` is false.
    public static func plan(requested: Bool, allowed: [Int]) -> CPUPinning {
        guard requested else {
            return CPUPinning(pinned: false, measurerCPU: nil, targetCPU: nil, reason: "disabled with --no-pin")
        }
        guard allowed.count >= 2 else {
            return CPUPinning(
                pinned: false, measurerCPU: nil, targetCPU: nil,
                reason: "only \(allowed.count) CPU allowed; measurer and target share it")
        }
        return CPUPinning(
            pinned: true, measurerCPU: allowed[allowed.count - 2],
            targetCPU: allowed[allowed.count - 1], reason: nil)
    }
}
