import PremainAudit
import PremainModel

/// Decides whether a measured quantity changed between two series: a regression only when
/// the Mann–Whitney test is significant at `alpha` **and** the difference of medians exceeds
/// the minimum effect (the larger of `minEffectMs` and `minEffectPercent` of the base
/// median). The bootstrap interval of the difference of medians is reported beside it, not
/// used to decide: with a few slow outliers in 20 runs the percentile interval of a median
/// jumps between order statistics and would hide real shifts the rank test sees clearly.
public struct ChangeDetector: Sendable {
    public var settings: DiffSettings

    public init(settings: DiffSettings = .init()) {
        self.settings = settings
    }

    public typealias Change = MeasuredDelta.Change
    public typealias Result = MeasuredDelta.Result

    public func compare(base: TimeSummary?, head: TimeSummary?, seedSalt: UInt64 = 0) -> Result {
        guard let base else {
            return Result(change: head == nil ? .untested : .added, deltaMs: head?.medianMs, percent: nil)
        }
        guard let head else { return Result(change: .removed, deltaMs: -base.medianMs, percent: nil) }
        let delta = head.medianMs - base.medianMs
        let percent = base.medianMs != 0 ? delta / base.medianMs * 100 : nil
        let minimum = max(settings.minEffectMs, abs(base.medianMs) * settings.minEffectPercent / 100)
        guard let test = MannWhitney.test(base.samplesMs, head.samplesMs), base.samplesMs.count >= 2,
            head.samplesMs.count >= 2
        else {
            return Result(change: .untested, deltaMs: delta, percent: percent, minEffectMs: minimum)
        }
        let interval = BootstrapInterval.differenceOfMedians(
            base: base.samplesMs, head: head.samplesMs, level: 1 - settings.alpha,
            resamples: settings.bootstrapResamples, seed: settings.seed &+ seedSalt)
        var change = Change.noChange
        if test.pValue < settings.alpha, abs(delta) > minimum {
            change = delta > 0 ? .regression : .improvement
        }
        return Result(
            change: change, deltaMs: delta, percent: percent, minEffectMs: minimum, test: test,
            interval: interval)
    }
}
