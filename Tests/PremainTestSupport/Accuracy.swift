import Foundation

/// The opt-in accuracy checks: premain's figures against the samples' self-timing, real-launch
/// verdicts and speed budgets. They depend on how busy the machine is, so the ordinary test run
/// (`scripts/test`, CI) leaves them out; `PREMAIN_ACCURACY=1 swift test --filter Accuracy` runs
/// them on a quiet machine. The benchmarks (`scripts/bench-measure`, `scripts/bench-trace`)
/// print the same figures side by side.
public enum Accuracy {
    /// True when the environment has `PREMAIN_ACCURACY=1`.
    public static var enabled: Bool { ProcessInfo.processInfo.environment["PREMAIN_ACCURACY"] == "1" }

    /// Why a check was skipped, for `XCTSkipUnless` and swift-testing comments.
    public static let skipReason = "an accuracy check: set PREMAIN_ACCURACY=1 to run it on a quiet machine"
}
