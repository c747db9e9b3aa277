import Glibc
import PremainAudit
import PremainModel

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
            return (try body(), "not held (/dev/cpu_dma_latency: \(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var zero: Int32 = 0
        let written = withUnsafeBytes(of: &zero) { write(fd, $0.baseAddress, $0.count) }
        guard written == MemoryLayout<Int32>.size else {
            return (try body(), "not held (write to /dev/cpu_dma_latency failed)")
        }
        return (try body(), "held at 0 µs: idle CPUs poll instead of halting")
    }
}
