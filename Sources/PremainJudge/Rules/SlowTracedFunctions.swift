import PremainAudit
import PremainModel

extension Rule {
    /// A finding for each traced function of `kind` whose inclusive median reaches the rule's
    /// `thresholdMs`, with the rule's advice and the function's source line: the body of the
    /// Swift start-up rules, which differ only in the kind they look at. `[]` without a trace.
    func slowTracedFunctions(of kind: TracedFunctionKind, _ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        let threshold = config["thresholdMs"]
        return input.functions.compactMap { function in
            guard function.kind == kind, function.inclusive.medianMs >= threshold else { return nil }
            return finding(
                config, RuleInput.subject(path: function.object, symbol: function.subjectName),
                figure: function.inclusive.medianMs, threshold: threshold, unit: "ms",
                message:
                    "\(SwiftName.display(symbol: function.symbol, demangled: function.demangled)) takes \(Milliseconds.text(function.inclusive.medianMs)) (median) on the start-up path, threshold \(Milliseconds.text(threshold))",
                advice: Self.description.advice, location: function.location)
        }
    }
}
