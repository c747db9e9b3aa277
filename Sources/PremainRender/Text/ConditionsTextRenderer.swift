import PremainModel

/// Renders `LaunchConditions` as the conditions block that `measure` and `trace` reports share,
/// so the two read the same way. Pure: conditions in, text out (every line ends in a newline).
public enum ConditionsTextRenderer {
    /// "conditions: date, kernel", then machine, pinning and scheduling, binary and environment
    /// overrides, each line indented by `indent` (the block's own lines by two more). `measurer`
    /// names the thread that times the target: "measurer" for measure, "tracer" for trace.
    public static func render(_ c: LaunchConditions, indent: String = "", measurer: String = "measurer") -> String {
        let inner = indent + "  "
        var out = "\(indent)conditions: \(c.date), kernel \(c.kernel)\n"
        out +=
            "\(inner)CPU \(c.cpuModel ?? "unknown"), \(c.onlineCPUs) online, allowed \(c.allowedCPUs.map(String.init).joined(separator: ",")), "
        out +=
            "governor \(c.frequencyGovernor ?? "not exposed"), load \(c.loadAverage1m.map { Milliseconds.number($0, decimals: 2) } ?? "?")\n"
        if c.pinning.pinned, let measurerCPU = c.pinning.measurerCPU, let target = c.pinning.targetCPU {
            out += "\(inner)pinned: \(measurer) CPU \(measurerCPU), target CPU \(target)"
        } else {
            out += "\(inner)not pinned: \(c.pinning.reason ?? "unknown")"
        }
        out += "; \(measurer) \(c.measurerScheduling ?? "SCHED_OTHER")\n"
        if let idle = c.cpuIdleLatency { out += "\(inner)cpu_dma_latency \(idle)\n" }
        out +=
            "\(inner)glibc \(c.glibcVersion); stdin \(c.stdin); binary \(TextSafety.display(c.binaryPath)) build-id \(c.buildID ?? "none")\n"
        if !c.environmentOverrides.isEmpty {
            out +=
                "\(inner)environment overrides: \(c.environmentOverrides.map(TextSafety.display).joined(separator: "; "))\n"
        }
        return out
    }
}
