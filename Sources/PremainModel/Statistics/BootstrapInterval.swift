/// A percentile bootstrap confidence interval of `median(head) − median(base)`: resample
/// each side with replacement, take the difference of medians, read off the quantiles.
public struct BootstrapInterval: Sendable, Equatable, Codable {
    public var lowMs: Double
    public var highMs: Double
    /// Confidence level, e.g. 0.99.
    public var level: Double

    /// The interval at `level` from `resamples` resamples with a generator seeded by `seed`;
    /// `nil` when either side is empty.
    public static func differenceOfMedians(
        base: [Double], head: [Double], level: Double, resamples: Int,
        seed: UInt64
    ) -> BootstrapInterval? {
        guard !base.isEmpty, !head.isEmpty, resamples > 0 else { return nil }
        var generator = SeededGenerator(seed: seed)
        var differences: [Double] = []
        differences.reserveCapacity(resamples)
        var baseDraw = [Double](repeating: 0, count: base.count)
        var headDraw = [Double](repeating: 0, count: head.count)
        for _ in 0..<resamples {
            for index in baseDraw.indices { baseDraw[index] = base[Int.random(in: 0..<base.count, using: &generator)] }
            for index in headDraw.indices { headDraw[index] = head[Int.random(in: 0..<head.count, using: &generator)] }
            baseDraw.sort()
            headDraw.sort()
            differences.append(
                SampleStatistics.percentile(sorted: headDraw, 0.5) - SampleStatistics.percentile(sorted: baseDraw, 0.5))
        }
        differences.sort()
        let tail = (1 - level) / 2
        return BootstrapInterval(
            lowMs: SampleStatistics.percentile(sorted: differences, tail),
            highMs: SampleStatistics.percentile(sorted: differences, 1 - tail),
            level: level)
    }

    public init(lowMs: Double, highMs: Double, level: Double) {
        self.lowMs = lowMs
        self.highMs = highMs
        self.level = level
    }
}

/// SplitMix64: a small, fast, seedable generator, so bootstrap intervals and simulations are
/// the same on every run.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
