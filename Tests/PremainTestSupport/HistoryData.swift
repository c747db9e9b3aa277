import Foundation

/// Series of recorded reports for the history tests: a level with Gaussian noise from a fixed
/// seed (SplitMix64 and Box–Muller), and optionally a step. The same seed gives the same series.
public enum HistoryData {
    /// `count` values around `levelMs` with noise of standard deviation `noiseMs`; from index
    /// `stepAt` (0-based) on, `stepMs` higher.
    public static func series(
        count: Int = 30, levelMs: Double = 40, noiseMs: Double = 0.3, stepAt: Int? = nil,
        stepMs: Double = 2, seed: UInt64 = 0x5EED
    ) -> [Double] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let step = stepAt.map { index >= $0 ? stepMs : 0 } ?? 0
            return levelMs + step + noiseMs * generator.gaussian()
        }
    }

    /// A measure report whose `main` median is `mainMs` (runs spread ±0.02 ms around it) and
    /// whose other milestones follow it.
    public static func measureReport(mainMs: Double) -> String {
        let runs = (0..<5).map { mainMs + Double($0 - 2) * 0.01 }
        return RecordedReports.measure(
            command: "/app/main",
            milestones: [
                "loaderDone": runs.map { $0 * 0.2 }, "main": runs, "firstOutput": runs.map { $0 + 1 },
                "exit": runs.map { $0 + 2 },
            ])
    }

    /// "c01" … "c30": the commit of the n-th report (1-based).
    public static func commit(_ number: Int) -> String {
        number < 10 ? "c0\(number)" : "c\(number)"
    }

    struct SplitMix64 {
        var state: UInt64
        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// Uniform in (0, 1].
        mutating func uniform() -> Double { (Double(next() >> 11) + 1) / 9_007_199_254_740_992 }

        mutating func gaussian() -> Double {
            (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
        }
    }
}
