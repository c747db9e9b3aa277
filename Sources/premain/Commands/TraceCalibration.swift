import PremainLaunch

#if canImport(Glibc)
    import Glibc
    import PremainSystem
#endif

/// The empty function `premain trace` traces in a child copy of premain to measure its own cost
/// per breakpoint pair. Kept out of line and unoptimized so that every call is a real call.
@inline(never)
@_optimize(none)
func premainCalibrationEmpty() {}

/// The hidden mode `premain __trace-calibration N`: calls the empty function N times and exits.
enum TraceCalibration {
    static let modeArgument = "__trace-calibration"
    /// Demangled name without the parameter list: `premain.premainCalibrationEmpty() -> ()`.
    static let symbol = "premain.premainCalibrationEmpty"
    static let calls = 300

    /// Runs the calibration mode when `words` (the arguments after premain's name) ask for it;
    /// returns otherwise. (Not `CommandLine.arguments`: its lazy global costs every start about
    /// 40 us, traced.)
    static func runIfRequested(_ words: [String]) {
        guard words.first == modeArgument else { return }
        let count = words.count > 1 ? Int(words[1]) ?? calls : calls
        for _ in 0..<count { premainCalibrationEmpty() }
        exit(0)
    }

    /// premain itself, run in calibration mode; `nil` when /proc/self/exe cannot be read.
    static var target: CalibrationTarget? {
        guard let path = LocalFiles.linkTarget("/proc/self/exe") else { return nil }
        return CalibrationTarget(
            executable: path, arguments: ["premain", modeArgument, String(calls)],
            symbol: symbol, calls: calls)
    }
}
