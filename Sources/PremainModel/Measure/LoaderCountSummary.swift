/// `LD_DEBUG=statistics` counts: those of the median run, and every run's.
public struct LoaderCountSummary: Codable, Equatable, Sendable {
    /// Printed when relocation was done, before any initializer.
    public var startup: LoaderCounts?
    /// Printed at exit; includes lazy binding during main.
    public var final: LoaderCounts?
    public var startupPerRun: [LoaderCounts?]
    public var finalPerRun: [LoaderCounts?]

    public init(startup: LoaderCounts? = nil, final: LoaderCounts? = nil, startupPerRun: [LoaderCounts?], finalPerRun: [LoaderCounts?]) {
        self.startup = startup
        self.final = final
        self.startupPerRun = startupPerRun
        self.finalPerRun = finalPerRun
    }
}
