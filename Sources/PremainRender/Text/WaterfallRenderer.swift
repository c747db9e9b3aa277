import PremainModel

/// The median run drawn along its time axis: the loader's mapping and relocation, then one bar
/// per object's initializers, then main, first output and exit. Pure: `LaunchMeasurement → String`.
/// Lines fit in `width` columns (100 by default); a label wider than its column stands whole on
/// the line above its bar. With `TextFit.unlimited` the label column is as wide as the widest
/// label and the bars as long as at 100 columns.
public enum WaterfallRenderer {
    public static func render(_ measurement: LaunchMeasurement, width: Int = 100) -> String {
        guard let run = measurement.medianRun, let timeline = measurement.medianRunTimeline,
            timeline.loaderDoneMs != nil || !timeline.initializers.isEmpty
        else { return "" }
        let exitMs = run < measurement.outcomes.count ? sampleExit(measurement, run: run) : nil
        let endMs = max(
            exitMs ?? 0, timeline.mainMs ?? 0, timeline.initializers.last.map { $0.startMs + ($0.durationMs ?? 0) } ?? 0
        )
        guard endMs > 0 else { return "" }
        let wide = width == TextFit.unlimited
        let labels = timeline.initializers.map { call in
            call.isProgram ? "\(ObjectName.fileName(call.path)) (exe)" : ObjectName.fileName(call.path)
        }
        let labelWidth = wide ? max(24, labels.map { TextSafety.display($0).count }.max() ?? 0) : 24
        let figureWidth = 22
        let barWidth = wide ? 48 : max(20, width - 2 - labelWidth - 2 - figureWidth - 2)
        func column(_ ms: Double) -> Int {
            min(barWidth - 1, max(0, Int((ms / endMs * Double(barWidth)).rounded(.down))))
        }
        func bar(from start: Double, to end: Double, fill: Character) -> String {
            let first = column(start)
            let length = max(1, Int(((end - start) / endMs * Double(barWidth)).rounded()))
            let last = min(barWidth, first + length)
            return String(repeating: " ", count: first) + String(repeating: fill, count: last - first)
                + String(repeating: " ", count: barWidth - last)
        }
        func marker(at ms: Double) -> String {
            let at = column(ms)
            return String(repeating: " ", count: at) + "|" + String(repeating: " ", count: barWidth - at - 1)
        }
        func line(_ label: String, _ drawn: String, _ figure: String) -> String {
            var name = TextSafety.display(label)
            var above = ""
            if name.count > labelWidth {
                above = "  " + name + "\n"
                name = ""
            }
            let row =
                "  " + name + String(repeating: " ", count: labelWidth - name.count) + "  " + drawn + "  " + figure
            return above + row.trailingSpacesRemoved
        }
        var lines: [String] = []
        let scale =
            "0" + String(repeating: " ", count: max(0, barWidth - 1 - Milliseconds.text(endMs).count))
            + Milliseconds.text(endMs)
        lines.append(line("", scale, ""))
        if let done = timeline.loaderDoneMs {
            lines.append(
                line(
                    "loader: map + relocate", bar(from: timeline.loaderStartMs, to: done, fill: "-"),
                    "\(Milliseconds.number(timeline.loaderStartMs))–\(Milliseconds.number(done))"))
        }
        for (call, name) in zip(timeline.initializers, labels) {
            let duration = call.durationMs ?? (endMs - call.startMs)
            let figure =
                call.durationMs.map { "\(Milliseconds.number($0)) @ \(Milliseconds.number(call.startMs))" }
                ?? "unfinished @ \(Milliseconds.number(call.startMs))"
            lines.append(line(name, bar(from: call.startMs, to: call.startMs + duration, fill: "#"), figure))
        }
        if let main = timeline.mainMs { lines.append(line("main", marker(at: main), Milliseconds.number(main))) }
        if let exitMs { lines.append(line("exit", marker(at: exitMs), Milliseconds.number(exitMs))) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The exit time of counted run `run`, from the exit samples (which skip runs that never
    /// exited, so only when every run exited).
    static func sampleExit(_ measurement: LaunchMeasurement, run: Int) -> Double? {
        guard let exit = measurement.milestones[.exit], exit.samplesMs.count == measurement.runs,
            run < exit.samplesMs.count
        else { return nil }
        return exit.samplesMs[run]
    }
}
