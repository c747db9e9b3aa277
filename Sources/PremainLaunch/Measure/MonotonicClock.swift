import Glibc

/// CLOCK_MONOTONIC, the clock of every measured time (the self-timed samples use it too).
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary boot-time origin.
    public static func nowNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Milliseconds from `start` to `end`; negative when `end` is earlier.
    public static func milliseconds(from start: UInt64, to end: UInt64) -> Double {
        end >= start ? Double(end - start) / 1_000_000 : -Double(start - end) / 1_000_000
    }
}
