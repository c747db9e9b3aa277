import CTrace
import PremainModel
import PremainAudit

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
