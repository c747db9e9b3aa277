import Foundation
import PremainLaunch
import Testing

@testable import PremainModel

/// The decisive early stop of `premain compare` (issue 37): a change far beyond its threshold
/// settles the comparison before the other gated quantities decide, and a change near the
/// threshold or none at all never does, so the catch rate of +1 ms and the false-regression
/// rate of A/A stay the adaptive design's own. Scripted and simulated launches only.
struct EarlyStopTests {
    /// A launch whose main is scattered over ±`mainNoiseMs` (a load that comes and goes) and
    /// whose first output comes `afterMainMs` later, with `cpuMs` of CPU time.
    static func launch(mainMs: Double, afterMainMs: Double, cpuMs: Double) -> LaunchSample {
        var sample = CompareTests.launch(mainMs: mainMs, cpuMs: cpuMs)
        sample.firstOutputMs = mainMs + afterMainMs
        sample.exitMs = mainMs + afterMainMs + 0.1
        return sample
    }

    /// Seeded switching load: each launch is idle (±0.2 ms) or, one time in three, slowed by a
    /// busy CPU (0-8 ms more), on main and everything after it alike.
    static func loaded(_ generator: inout SeededGenerator) -> Double {
        let busy = Double.random(in: 0..<1, using: &generator) < 1.0 / 3
        return Double.random(in: -0.2...0.2, using: &generator)
            + (busy ? Double.random(in: 0...8, using: &generator) : 0)
    }

    /// `count` blocks of base and head under the switching load; head's work after main takes
    /// `extraMs` more wall and CPU time.
    static func blocks(_ count: Int, extraMs: Double, seed: UInt64) -> [PairedBlock] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { index in
            let baseFirst = index % 2 == 0
            var block = PairedBlock(baseFirst: baseFirst, base: [], head: [])
            for isBase in baseFirst ? [true, false, false, true] : [false, true, true, false] {
                let main = 5 + loaded(&generator)
                let after = 2 + (isBase ? 0 : extraMs) + max(0, loaded(&generator))
                let sample = launch(mainMs: main, afterMainMs: after, cpuMs: 6 + (isBase ? 0 : extraMs))
                if isBase { block.base.append(sample) } else { block.head.append(sample) }
            }
            return block
        }
    }

    @Test func aFarRegressionStopsAtTheFirstLookWhileMainIsUndecided() throws {
        // +30 ms of work after main (a lazy global on --version's path): first output moves
        // 60 thresholds, main does not move but its interval cannot fit inside ±0.5 ms soon.
        let launcher = ScriptedLauncher { path, index in
            var generator = SeededGenerator(seed: UInt64(index) &* 7919)
            let head = path == "/h"
            return Self.launch(
                mainMs: 5 + Self.loaded(&generator), afterMainMs: 2 + (head ? 30 : 0) + max(0, Self.loaded(&generator)),
                cpuMs: 6 + (head ? 30 : 0))
        }
        let report = try CompareTests.session(launcher).compare(
            base: "/b", head: "/h", arguments: ["--version"], environment: [],
            options: CompareTests.options(minRuns: 16, maxRuns: 200))
        #expect(report.verdict == .regression, "\(report.reasons)")
        #expect(report.runs.stop == .decided && report.runs.perSide == 16, "\(report.runs.perSide)")
        let main = try #require(report.times.first { $0.quantity == .milestone(.main) })
        #expect(main.gated && main.result == .undecided)
        let early = try #require(report.reasons.first { $0.hasPrefix("stopped early: ") }, "\(report.reasons)")
        #expect(early.contains("time to first output moved far beyond its threshold (99.75 % interval +"))
        // The threshold is the larger of 0.5 ms and 5 % of base's median first output (about 11 ms).
        #expect(early.contains("beyond 5 × 0.550 ms), so time to main cannot change the verdict: time to main"))
    }

    @Test func theSameComparisonWithoutTheDecisiveMoveRunsOn() {
        // The blocks of a far move, and of a move of 1 ms (twice the threshold): the far one
        // is decisive, the near one is not, so it waits for main like before.
        let builder = CompareBuilder(settings: CompareSettings())
        let far = builder.assess(Self.blocks(8, extraMs: 30, seed: 1))
        #expect(far.decisive.map(\.quantity).contains(.milestone(.firstOutput)))
        #expect(far.decisiveDirection == .regression)
        #expect(!far.decided && builder.isSettled(far, instructions: nil))
        let near = builder.assess(Self.blocks(8, extraMs: 1, seed: 1))
        #expect(near.decisive.isEmpty && near.decisiveDirection == nil)
        #expect(!builder.isSettled(near, instructions: nil))
    }

    @Test func anImprovementStopsEarlyOnlyWhenNoOtherQuantityCanBecomeARegression() {
        let builder = CompareBuilder(settings: CompareSettings())
        let faster = builder.assess(
            Self.blocks(8, extraMs: -1.9, seed: 3).map { block in
                // Head is 30 ms faster after main: base carries the work.
                PairedBlock(
                    baseFirst: block.baseFirst,
                    base: block.base.map { sample in
                        var moved = sample
                        moved.firstOutputMs = (sample.firstOutputMs ?? 0) + 30
                        moved.exitMs = (sample.exitMs ?? 0) + 30
                        moved.cpuMs = (sample.cpuMs ?? 0) + 30
                        return moved
                    }, head: block.head)
            })
        #expect(faster.decisive.first?.direction == .improvement)
        let main = faster.gated.first { $0.quantity == .milestone(.main) }
        if let main, main.result == .undecided, let high = main.difference?.highMs, high > main.thresholdMs {
            #expect(faster.decisiveDirection == nil)
        } else {
            #expect(faster.decisiveDirection == .improvement)
        }
        // Main bounded below its threshold: nothing left could outrank the improvement.
        var bounded = faster
        for index in bounded.times.indices where bounded.times[index].quantity == .milestone(.main) {
            bounded.times[index].result = .undecided
            bounded.times[index].difference?.high = 0.4
        }
        #expect(bounded.decisiveDirection == .improvement)
        var open = bounded
        for index in open.times.indices where open.times[index].quantity == .milestone(.main) {
            open.times[index].difference?.high = 0.9
        }
        #expect(open.decisiveDirection == nil)
    }

    /// The error rates by simulation: 60 A/A comparisons and 60 of +1 ms under the switching
    /// load, looked at on the session's own schedule (16 runs per side, then a quarter more each
    /// time, up to 100). Not one look finds a decisive move, so every one of them settles, or
    /// runs on, exactly as it did before the early stop: neither rate can get worse. +30 ms is
    /// decisive at the first look in every one of 60. (scripts/bench-verdict measures the
    /// rates on real launches.)
    @Test func simulatedAAAndOneMillisecondNeverStopEarlyAndThirtyAlwaysDoes() {
        let builder = CompareBuilder(settings: CompareSettings())
        var looks: [Int] = [8]
        while let last = looks.last, last < 50 { looks.append(min(50, max(last + 1, (last * 5 + 3) / 4))) }
        var early = [0.0: 0, 1.0: 0, 30.0: 0]
        for seed in 1...60 {
            for extra in [0.0, 1.0] {
                let all = Self.blocks(50, extraMs: extra, seed: UInt64(seed))
                for count in looks where !builder.assess(Array(all.prefix(count))).decisive.isEmpty {
                    early[extra, default: 0] += 1
                    break
                }
            }
            if builder.assess(Self.blocks(8, extraMs: 30, seed: UInt64(seed))).decisiveDirection == .regression {
                early[30, default: 0] += 1
            }
        }
        #expect(early[0] == 0 && early[1] == 0, "\(early)")
        #expect(early[30] == 60, "\(early)")
    }
}
