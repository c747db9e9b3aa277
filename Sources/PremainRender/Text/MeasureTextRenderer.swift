import PremainModel

/// `premain measure` as text: per measurement a phase table, an object table, the waterfall of
/// the median run, the instruction counts (`--instructions`), observer effect, loader counts, cold
/// residency, failures, warnings and the conditions. Pure: `MeasureReport → String`; fits
/// `width` columns (100 by default; `TextFit.unlimited` shortens and wraps nothing).
public enum MeasureTextRenderer {
    public static func render(_ report: MeasureReport, width: Int = 100) -> String {
        MatrixText.measureText(report, width: width)
            + report.measurements.map { render($0, width: width) }.joined(separator: "\n")
    }

    public static func render(_ m: LaunchMeasurement, width: Int = 100) -> String {
        let wrap = { (line: String) in Self.wrap(line, width: width) }
        let row = m.launch == nil ? "" : "\(TextSafety.display(m.rowLabel)): "
        var out = "premain measure: \(row)\(TextSafety.display(m.command.joined(separator: " ")))\n"
        let temperature = m.cold ? "cold (page cache evicted before every run)" : "warm"
        out +=
            "  \(m.runs) run\(m.runs == 1 ? "" : "s") after \(m.warmup) warm-up\(m.warmup == 1 ? "" : "s"), \(temperature); "
        out += "status \(m.status.rawValue)\n"
        out += "  times in ms since process birth (CLOCK_MONOTONIC in the target just before its execve)\n"
        if m.loaderPhasesMissing == nil {
            out += "  loader lines read together share one stamp: 0.000 means below that resolution\n"
        }
        for failure in m.failures { out += wrap("  FAILED: \(TextSafety.display(failure))") + "\n" }
        if let missing = m.loaderPhasesMissing { out += wrap("  no loader phases: \(missing)") + "\n" }

        out += BreakdownText.render(m, width: width)
        out += "\n" + phaseTable(m.milestones, process: true, width: width)

        out += objectTable(m.objects, width: width)
        out += lateTable(m.loadedAfterMain, width: width)
        for image in m.execImages ?? [] { out += self.image(image, of: m.runs, width: width) }
        let waterfall = WaterfallRenderer.render(m, width: width)
        if !waterfall.isEmpty, let run = m.medianRun {
            out +=
                "\n  waterfall of run \(run + 1) (closest to the median exit; # initializers, - loader, | milestone)\n"
            out += waterfall
        }
        if let instructions = m.instructions {
            out += "\n" + InstructionsTextRenderer.render(instructions, width: width)
        }
        out +=
            "\n"
            + details(m).split(separator: "\n", omittingEmptySubsequences: false)
            .map { wrap(String($0)) }.joined(separator: "\n")
        return out
    }

    /// The milestones reached, one row each; `process` adds those of the process (first
    /// output, ready, exit) to the loader's.
    static func phaseTable(_ milestones: Milestones, process: Bool, width: Int) -> String {
        var table = TextTable(
            headers: ["milestone", "median", "p90", "min", "max", "MAD", "runs"],
            alignments: [.left, .right, .right, .right, .right, .right, .right], maxWidth: width)
        var rows: [(String, TimeSummary?)] = [
            ("loader start (first line)", milestones[.loaderStart]),
            ("loader done (map+relocate)", milestones[.loaderDone]),
            ("program initializers", milestones[.programInitializers]),
            ("main", milestones[.main]),
        ]
        if process {
            rows += [
                ("first output", milestones[.firstOutput]), ("ready (--ready, --until FUNCTION)", milestones[.ready]),
                ("exit", milestones[.exit]),
            ]
        }
        for (label, summary) in rows {
            guard let summary else { continue }
            table.add([label] + figures(summary) + ["\(summary.samplesMs.count)"])
        }
        return table.render()
    }

    /// The initializers of each object of one image, with how many runs finished them.
    static func objectTable(_ objects: [ObjectMeasurement], width: Int) -> String {
        let withInit = objects.filter { $0.initializersStart != nil }
        guard !withInit.isEmpty else { return "" }
        var table = TextTable(
            headers: ["initializers of", "starts", "median", "p90", "min", "max", "MAD", "runs"],
            alignments: [.left, .right, .right, .right, .right, .right, .right, .right],
            kinds: [.path], maxWidth: width == TextFit.unlimited ? width : width - 2)
        for object in withInit {
            let name = object.role == .executable ? "\(object.path) (executable)" : object.path
            let start = object.initializersStart.map { Milliseconds.number($0.medianMs) } ?? "-"
            let started = object.initializersStart?.samplesMs.count ?? 0
            guard let duration = object.initializers else {
                table.add([name, start, "-", "-", "-", "-", "-", "0/\(started)"])
                continue
            }
            table.add([name, start] + figures(duration) + ["\(duration.samplesMs.count)/\(started)"])
        }
        var out = "\n" + table.render()
        out += "    (runs: how many runs finished these initializers / how many started them)\n"
        for object in withInit
        where (object.initializers?.samplesMs.count ?? 0) < (object.initializersStart?.samplesMs.count ?? 0) {
            out +=
                wrap(
                    "    unfinished in some runs (the run ended inside them): \(TextSafety.display(object.path))",
                    width: width) + "\n"
        }
        return out
    }

    /// Objects loaded after main (dlopen): when the load began, how long it took, and each
    /// object's own initializers.
    static func lateTable(_ objects: [LateObjectMeasurement]?, width: Int) -> String {
        guard let objects, !objects.isEmpty else { return "" }
        var table = TextTable(
            headers: ["loaded after main", "starts", "load", "initializers", "p90", "max", "runs"],
            alignments: [.left, .right, .right, .right, .right, .right, .right],
            kinds: [.path], maxWidth: width == TextFit.unlimited ? width : width - 2)
        for object in objects {
            let load = object.load.map { Milliseconds.number($0.medianMs) } ?? "-"
            let initializers =
                object.initializers.map { [$0.medianMs, $0.p90Ms, $0.maxMs].map { Milliseconds.number($0) } }
                ?? ["-", "-", "-"]
            table.add(
                [object.path, Milliseconds.number(object.loadStart.medianMs), load] + initializers + ["\(object.runs)"])
        }
        var out = "\n" + table.render()
        out += "    (dlopen after main: not part of the time before main; load = mapping and relocation of the whole\n"
        out += "     load, initializers = that object's own, to the next initializer or the end of the load)\n"
        for object in objects where object.unfinished > 0 {
            out +=
                wrap(
                    "    unfinished in \(object.unfinished) run\(object.unfinished == 1 ? "" : "s") (the run ended inside them): \(TextSafety.display(object.path))",
                    width: width) + "\n"
        }
        return out
    }

    /// One image of an exec chain: its loader phases, initializers, late loads and counts.
    static func image(_ image: ImageMeasurement, of runs: Int, width: Int) -> String {
        let name = image.program.map { TextSafety.display($0) } ?? "an unnamed program"
        var out = "\n  image \(image.position), exec'd: \(name) (reached in \(image.runs)/\(runs) runs)\n"
        out += phaseTable(image.milestones, process: false, width: width)
        out += objectTable(image.objects, width: width)
        out += lateTable(image.loadedAfterMain, width: width)
        if let counts = image.loaderCounts {
            if let startup = counts.startup {
                out += "  image \(image.position) loader counts at relocation end: \(describe(startup))\n"
            }
            if let final = counts.final {
                out += "  image \(image.position) loader counts at exit (incl. lazy binding): \(describe(final))\n"
            }
        }
        return out
    }

    /// Wraps a line longer than `width` at spaces; continuation lines get 6 more spaces.
    static func wrap(_ line: String, width: Int) -> String {
        guard line.count > width else { return line }
        let leading = String(line.prefix { $0 == " " })
        return TextWrap.lines(
            line.split(separator: " "), width: width, first: leading,
            indent: leading + String(repeating: " ", count: 6)
        ).joined(separator: "\n")
    }

    static func details(_ m: LaunchMeasurement) -> String {
        var out = ""
        if let plain = m.uninstrumented, let effect = m.observerEffect {
            var parts: [String] = []
            if let ratio = effect.firstOutputRatio, let base = plain.firstOutput {
                parts.append(
                    "first output ×\(Milliseconds.number(ratio)) (uninstrumented median \(Milliseconds.text(base.medianMs)))"
                )
            }
            if let ratio = effect.exitRatio, let base = plain.exit {
                parts.append(
                    "exit ×\(Milliseconds.number(ratio)) (uninstrumented median \(Milliseconds.text(base.medianMs)))")
            }
            if let ratio = effect.cpuRatio, let base = plain.cpu {
                parts.append(
                    "target CPU time ×\(Milliseconds.number(ratio)) (uninstrumented median \(Milliseconds.text(base.medianMs)))"
                )
            }
            if !parts.isEmpty {
                out +=
                    "  observer effect (LD_DEBUG vs none, \(plain.runs) interleaved runs each): \(parts.joined(separator: ", "))\n"
            }
        }
        if let counts = m.loaderCounts {
            let chain = m.execImages == nil ? "" : " (image 1)"
            if let startup = counts.startup {
                out += "  loader counts at relocation end\(chain): \(describe(startup))\n"
            }
            if let final = counts.final {
                out += "  loader counts at exit (incl. lazy binding)\(chain): \(describe(final))\n"
            }
            out +=
                "    (LD_DEBUG=statistics counts; its cycle figures are TSC ticks, not durations, and are not used)\n"
        }
        if let capture = m.outputCapture {
            let how =
                capture == "pipe"
                ? "through a pipe" : "to a private null device (a write costs what it costs on /dev/null)"
            out += "  output: stdout \(how); stderr through a pipe\n"
        }
        if let residency = m.coldResidency {
            let total = residency.reduce(0) { $0 + $1.pages }
            let stayed = residency.reduce(0.0) { $0 + $1.residentPagesMedian }
            out +=
                "  cold: \(Plural.count(residency.count, "file")) evicted before every run (fdatasync + POSIX_FADV_DONTNEED); "
            out += "median \(Milliseconds.number(stayed, decimals: 0)) of \(total) pages stayed resident\n"
            for file in residency where file.residentPagesMedian > 0 || file.error != nil {
                out +=
                    "    \(TextSafety.display(file.path)): \(Milliseconds.number(file.residentPagesMedian, decimals: 0))/\(file.pages) pages resident"
                out += file.error.map { " (\($0))" } ?? ""
                out += "\n"
            }
        }
        if !m.warnings.isEmpty {
            out += "  warnings:\n"
            for warning in m.warnings {
                out +=
                    "    - \(TextSafety.display(warning.subject)): \(TextSafety.display(warning.message)); \(warning.advice)\n"
            }
        }
        out += ConditionsTextRenderer.render(m.conditions, indent: "  ")
        return out
    }

    static func figures(_ summary: TimeSummary) -> [String] {
        [summary.medianMs, summary.p90Ms, summary.minMs, summary.maxMs, summary.madMs].map { Milliseconds.number($0) }
    }

    static func describe(_ counts: LoaderCounts) -> String {
        var parts: [String] = []
        if let value = counts.symbolLookups { parts.append("\(value) symbol look-ups") }
        if let value = counts.relocationsFromCache {
            parts.append("\(value) more symbol relocations served by the one-entry look-up cache")
        }
        var text = parts.joined(separator: " + ")
        if let value = counts.relativeRelocations {
            text += (text.isEmpty ? "" : ", ") + "\(value) relative relocations"
        }
        return text
    }
}
