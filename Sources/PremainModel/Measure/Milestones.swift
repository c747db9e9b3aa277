/// The milestones of a launch, each summarized over the runs that reached it.
public struct Milestones: Codable, Equatable, Sendable {
    /// The loader's first line.
    public var loaderStart: TimeSummary?
    /// Mapping and relocation done: the first initializer is about to run.
    public var loaderDone: TimeSummary?
    /// The executable's own initializers start (`initialize program`).
    public var programInitializers: TimeSummary?
    /// `transferring control`: main is called.
    public var main: TimeSummary?
    /// First byte on stdout or stderr.
    public var firstOutput: TimeSummary?
    /// The process ended.
    public var exit: TimeSummary?

    public init(loaderStart: TimeSummary? = nil, loaderDone: TimeSummary? = nil,
                programInitializers: TimeSummary? = nil, main: TimeSummary? = nil,
                firstOutput: TimeSummary? = nil, exit: TimeSummary? = nil) {
        self.loaderStart = loaderStart
        self.loaderDone = loaderDone
        self.programInitializers = programInitializers
        self.main = main
        self.firstOutput = firstOutput
        self.exit = exit
    }
}

/// The name of a milestone: the keys of `Milestones` in reports, and what `diff` compares.
public enum Milestone: String, CaseIterable, Sendable {
    case loaderStart, loaderDone, programInitializers, main, firstOutput, exit
}

extension Milestones {
    /// The summary of `milestone`; `nil` when no run reached it.
    public subscript(_ milestone: Milestone) -> TimeSummary? {
        switch milestone {
        case .loaderStart: return loaderStart
        case .loaderDone: return loaderDone
        case .programInitializers: return programInitializers
        case .main: return main
        case .firstOutput: return firstOutput
        case .exit: return exit
        }
    }
}
