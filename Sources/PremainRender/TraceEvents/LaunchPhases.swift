import PremainModel

/// One launch cut into the phases the loader's lines bound, in ms since process birth: what
/// the trace export and the HTML waterfall draw for a run.
struct LaunchPhases {
    struct Phase: Equatable {
        var title: String
        var startMs: Double
        var endMs: Double
    }

    /// In time order; empty when the launch has no loader timeline (static or non-glibc
    /// binaries, uninstrumented runs).
    var phases: [Phase] = []
    /// "loader start", "main", "first output", "exit" with their times, those reached.
    var milestones: [(String, Double)] = []
    /// The last known time of the launch (exit, else the latest milestone); 0 when none.
    var end: Double = 0
    /// Where the objects' initializers ran: from the loader's first `calling init` to main
    /// (or the end when main was never reached).
    var initializerWindow: ClosedRange<Double> = 0...0

    init(_ sample: LaunchSample) {
        let loader = sample.loader
        let known = [loader?.loaderStartMs, loader?.loaderDoneMs, loader?.mainMs, sample.firstOutputMs, sample.exitMs]
            .compactMap { $0 }
        end = sample.exitMs ?? known.max() ?? 0
        if let loader {
            let done = loader.loaderDoneMs
            let main = loader.mainMs
            phases.append(Phase(title: "exec and loader start", startMs: 0, endMs: loader.loaderStartMs))
            phases.append(Phase(title: "map and relocate", startMs: loader.loaderStartMs, endMs: done ?? end))
            if let done {
                phases.append(Phase(title: "initializers", startMs: done, endMs: main ?? end))
                initializerWindow = done...max(done, main ?? end)
            }
            if let main { phases.append(Phase(title: "main", startMs: main, endMs: max(main, end))) }
            milestones.append(("loader start", loader.loaderStartMs))
            if let main { milestones.append(("main", main)) }
        }
        if let first = sample.firstOutputMs { milestones.append(("first output", first)) }
        if let exit = sample.exitMs { milestones.append(("exit", exit)) }
        phases = phases.map { Phase(title: $0.title, startMs: $0.startMs, endMs: max($0.startMs, $0.endMs)) }
    }
}
