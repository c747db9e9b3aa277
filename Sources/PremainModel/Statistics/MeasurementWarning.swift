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
