import PremainModel

/// The words every renderer uses for a comparison's deciding quantity and its causes, so text,
/// Markdown, SARIF and annotations say the same thing: "first output +54.4 ms (+358.0 %)",
/// "Tool.keywordTable (new lazy global, Sources/Tool/Keywords.swift:12) takes 51.692 ms".
/// Plain text: callers escape for their format. Pure.
public enum CauseText {
    /// "first output +54.400 ms (+358.0 %)" for the time the verdict rests on; `nil` without one.
    public static func decidingChange(_ report: CompareReport) -> String? {
        guard let time = report.decidingTime, let difference = time.difference else { return nil }
        var text = "\(time.quantity.shortTitle) \(Milliseconds.signed(difference.medianMs))"
        if time.base.medianMs > 0 {
            let percent = difference.medianMs / time.base.medianMs * 100
            text += " (\(percent >= 0 ? "+" : "−")\(String(format1: abs(percent))) %)"
        }
        return text
    }

    /// The causes the headline may name: only for a regression or an improvement.
    public static func claimed(_ report: CompareReport) -> [StartupCause] {
        report.verdict == .regression || report.verdict == .improvement ? report.causes ?? [] : []
    }

    /// Where a cause is in the sources: relative to the source root when `scope` holds it, else
    /// the file name and line; `nil` when unknown.
    public static func source(_ cause: StartupCause, scope: SourceScope? = nil) -> String? {
        guard let source = cause.source, source.line > 0 else { return nil }
        if let scope, let relative = scope.relativeToRoot(source.file) { return "\(relative):\(source.line)" }
        return source.shortText
    }

    /// "takes 51.692 ms" (new), "grew by 1.000 ms" (grown), "saved 2.000 ms" (removed),
    /// "shrank by 0.500 ms" (shrunk).
    public static func amount(_ cause: StartupCause) -> String {
        let change = abs(cause.difference.medianMs)
        switch cause.change {
        case .new: return "takes \(Milliseconds.text(cause.head?.medianMs ?? change))"
        case .grown: return "grew by \(Milliseconds.text(change))"
        case .removed: return "saved \(Milliseconds.text(change))"
        case .shrunk: return "shrank by \(Milliseconds.text(change))"
        }
    }

    /// "Tool.keywordTable (new lazy global, Sources/Tool/Keywords.swift:12) takes 51.692 ms";
    /// an object-level cause names its object: "libextra.so (new object's initializers) takes 1.002 ms".
    public static func lead(_ cause: StartupCause, scope: SourceScope? = nil) -> String {
        var place = [cause.description]
        if cause.function != nil, cause.object != StartupCause.executableRole { place.append("in \(cause.objectName)") }
        if let source = source(cause, scope: scope) { place.append(source) }
        return "\(cause.title) (\(place.joined(separator: ", "))) \(amount(cause))"
    }

    /// "explained 52.100 of 54.400 ms (96 %)"; the rest is never spread over the causes.
    public static func explained(_ explanation: StartupExplanation) -> String {
        let percent = Int((explanation.explainedShare * 100).rounded())
        return
            "explained \(Milliseconds.number(abs(explanation.explainedMs))) of \(Milliseconds.text(abs(explanation.changeMs))) (\(percent) %)"
    }

    /// "96 %" for a share of 0.96.
    public static func share(_ value: Double) -> String {
        "\(Int((value * 100).rounded())) %"
    }

    /// "+51.5 … +56.9" (ms without the unit) with the level when it is not the settings' one.
    public static func interval(_ difference: TimeDifference, level: Double) -> String {
        var text =
            "\(CompareTextRenderer.signedNumber(difference.lowMs)) … \(CompareTextRenderer.signedNumber(difference.highMs))"
        if abs(difference.level - level) > 1e-9 {
            text += " (\(Int((difference.level * 100).rounded(.down))) %)"
        }
        return text
    }

    /// The evidence in words: "traced", "loader".
    public static func evidence(_ cause: StartupCause) -> String {
        var text = cause.evidence == .traced ? "traced" : "loader"
        if let instructions = cause.instructionChange {
            text += ", \(CountText.signed(Double(instructions))) instructions"
        }
        return text
    }

    /// The cause as a finding (rule `startup_regression_cause`) for SARIF and workflow
    /// annotations: at its source line, the measured difference and interval in the message.
    public static func finding(_ cause: StartupCause, report: CompareReport) -> Finding {
        let level = Int((report.settings.confidence * 100).rounded())
        let quantity = report.explanation.map { $0.quantity.shortTitle } ?? "start-up"
        var message =
            "\(cause.title) (\(cause.description)) \(amount(cause)): "
            + "\(Milliseconds.signed(cause.difference.medianMs)) (\(level) % interval "
            + "\(Milliseconds.signed(cause.difference.lowMs)) … \(Milliseconds.signed(cause.difference.highMs)), "
            + "\(cause.difference.pairs) pairs), \(share(cause.share)) of the \(quantity) change"
        if let change = report.explanation?.changeMs { message += " \(Milliseconds.signed(change))" }
        let improving = report.verdict == .improvement
        return Finding(
            rule: StartupCauseRule.identifier, severity: improving ? .note : .warning,
            subject: .init(object: cause.objectName, path: cause.objectPath, symbol: cause.function ?? cause.symbol),
            figure: cause.difference.medianMs, unit: "ms", message: message,
            advice: improving
                ? "this change made start-up faster"
                : "move the work off the start-up path (make it lazy where it is first needed, or cheaper), or accept it with a raised threshold",
            location: cause.source)
    }
}

/// The pseudo-rule of start-up causes in SARIF and annotations.
public enum StartupCauseRule {
    public static let identifier = "startup_regression_cause"
    public static let summary = "A function or object that made start-up slower, measured by premain compare"
    public static let advice =
        "The paired comparison found the start-up change and attributed this share of it to the function at this line"
}
