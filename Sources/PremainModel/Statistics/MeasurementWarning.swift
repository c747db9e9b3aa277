/// Something about a series that makes its figures less trustworthy, with what to do about it.
public struct MeasurementWarning: Codable, Equatable, Sendable {
    /// What kind of problem this is.
    public enum Kind: String, Codable, Sendable {
        /// The first counted run was a high outlier: caches were still filling.
        case firstRunSlower = "first_run_slower"
        /// The spread (MAD relative to the median) is wide: the machine is noisy.
        case wideSpread = "wide_spread"
        /// Too few runs for a median and a p90 to mean much.
        case fewRuns = "few_runs"
        /// Some runs are outliers by the modified Z-score.
        case outliers
        /// Some runs failed (exit status, signal, timeout) and were left out of the times.
        case failedRuns = "failed_runs"
        /// The series ran without CPU pinning; the first loader lines may arrive late.
        case unpinned
        /// Cold runs could not evict some pages from the page cache.
        case pagesStayedResident = "pages_stayed_resident"
        /// The machine's speed changed during the series (first half against second half).
        case drift
        /// The load average was at or above the number of CPUs.
        case busyMachine = "busy_machine"
        /// The kernel counted thermal throttling events during the series.
        case throttled
        /// A wall-time difference that no CPU time, fault, switch or loader count backs.
        case noiseSuspected = "noise_suspected"
        /// Two separately measured series: drift between them cannot be told from a change.
        case unpaired
        /// The process exec'd another image: the milestones are the first image's.
        case execChain = "exec_chain"
        /// Child processes inherited LD_DEBUG; their loader lines are not in the figures.
        case childProcesses = "child_processes"
        /// LD_DEBUG slowed the program by more than the observer-effect budget.
        case observerEffect = "observer_effect"
        /// Output went through a pipe, which costs a program that writes a lot.
        case outputThroughPipe = "output_through_pipe"
        /// A loaded object's path held a newline: the lines after it were not the loader's.
        case oddLoaderPaths = "odd_loader_paths"
        /// The program closed the loader's channel after main: main cannot be checked against a
        /// later line (issue 34, defect 5).
        case loaderChannelClosed = "loader_channel_closed"
    }

    public var kind: Kind
    /// What the warning is about: a milestone name ("exit"), an object path, or "series".
    public var subject: String
    /// What was seen, with the figure. No trailing period.
    public var message: String
    /// What to do. No trailing period.
    public var advice: String

    public init(kind: Kind, subject: String, message: String, advice: String) {
        self.kind = kind
        self.subject = subject
        self.message = message
        self.advice = advice
    }
}

/// Turns summarized times into `MeasurementWarning`s with actionable advice.
public struct WarningAdvisor: Sendable {
    /// MAD / median above this is a wide spread (default 10 %).
    public var wideSpreadRatio: Double
    /// Fewer runs than this draw a `fewRuns` warning.
    public var minimumRuns: Int

    /// An outlier or a slow first run must differ from the median by at least this fraction
    /// (default 10 %) to be worth a warning: the modified Z-score alone flags 1 % differences
    /// when the spread is tiny.
    public var materialRatio: Double
    /// Instrumented / uninstrumented median above 1 + this draws an `observerEffect` warning
    /// (default 5 %, premain's own budget); `nil` for none.
    public var observerEffectBudget: Double?

    public init(
        wideSpreadRatio: Double = 0.10, minimumRuns: Int = 5, materialRatio: Double = 0.10,
        observerEffectBudget: Double? = 0.05
    ) {
        self.wideSpreadRatio = wideSpreadRatio
        self.minimumRuns = minimumRuns
        self.materialRatio = materialRatio
        self.observerEffectBudget = observerEffectBudget
    }

    /// Warnings about one summarized time named `subject` (a milestone or an object path).
    /// Returns `[]` when the series looks sound.
    public func warnings(for summary: TimeSummary, subject: String) -> [MeasurementWarning] {
        var found: [MeasurementWarning] = []
        let samples = summary.samplesMs
        func material(_ index: Int) -> Bool {
            abs(samples[index] - summary.medianMs) >= materialRatio * summary.medianMs
        }
        if samples.count >= 3, summary.outliers.contains(0), let first = samples.first,
            first > summary.medianMs, first == summary.maxMs, material(0)
        {
            found.append(
                MeasurementWarning(
                    kind: .firstRunSlower, subject: subject,
                    message: "the first run took \(Self.ms(first)) against a median of \(Self.ms(summary.medianMs))",
                    advice: "caches were probably still cold; raise --warmup"))
        }
        if summary.relativeSpread > wideSpreadRatio {
            let percent = Int((summary.relativeSpread * 100).rounded())
            found.append(
                MeasurementWarning(
                    kind: .wideSpread, subject: subject,
                    message:
                        "MAD is \(percent) % of the median (\(Self.ms(summary.madMs)) of \(Self.ms(summary.medianMs)))",
                    advice: "the machine is noisy; close other work, use more --runs, and compare medians only"))
        }
        let otherOutliers = summary.outliers.filter { $0 != 0 || !found.contains { $0.kind == .firstRunSlower } }
        if samples.count >= minimumRuns, otherOutliers.contains(where: material) {
            let runs = otherOutliers.map { String($0 + 1) }.joined(separator: ", ")
            found.append(
                MeasurementWarning(
                    kind: .outliers, subject: subject,
                    message: "\(otherOutliers.count) of \(samples.count) runs are outliers (run \(runs))",
                    advice:
                        "look for interference from other processes; the median is robust to them, the maximum is not"))
        }
        return found
    }

    /// A `fewRuns` warning when `runs` is below `minimumRuns`, else `nil`.
    public func runCountWarning(runs: Int) -> MeasurementWarning? {
        guard runs < minimumRuns else { return nil }
        return MeasurementWarning(
            kind: .fewRuns, subject: "series",
            message: "only \(runs) counted run\(runs == 1 ? "" : "s")",
            advice: "use --runs \(max(minimumRuns, 10)) or more for a meaningful median and p90")
    }

    static func ms(_ value: Double) -> String {
        Milliseconds.text(value)
    }
}
