// Fuzz target: a `--ready` pattern (the input's first line) compiled and tried on the lines that
// follow, as a launch tries its output, with a deadline. Compiled together with the matcher's
// sources of Sources/PremainLaunch/Measure (OutputPattern, PatternSyntax, PatternProgram,
// MonotonicClock), not through the PremainLaunch module. Traps when the matcher takes more steps
// than its linear bound, returns later than its deadline allows, gives up before the deadline,
// or when the byte pre-filter passes over a line that matches.
import Glibc

/// Time the matcher may take past its deadline: one clock check's worth of steps, sanitizers on.
let lateness: UInt64 = 500_000_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReadyPattern(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
    let source = String(decoding: bytes[..<split], as: UTF8.self)
    guard let pattern = try? OutputPattern(source) else { return 0 }
    let states = pattern.program.instructions.count
    let lines = bytes[min(split + 1, bytes.count)...].split(
        separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    for lineBytes in lines {
        let line = String(decoding: lineBytes, as: UTF8.self)
        var steps = 0
        let deadline = MonotonicClock.nowNs() + 2_000_000_000
        let outcome = pattern.program.run(line, deadlineNs: deadline, steps: &steps)
        let returned = MonotonicClock.nowNs()
        if returned > deadline + lateness { fatalError("returned \(returned - deadline) ns past its deadline") }
        if outcome == .deadlinePassed && returned < deadline { fatalError("gave up before its deadline") }
        let positions = line.count + 1
        if steps > (4 * states + 1) * positions {
            fatalError("\(steps) steps for \(positions) positions and \(states) states: not linear")
        }
        if outcome == .matched && pattern.match(bytes: lineBytes, deadlineNs: nil) != .matched {
            fatalError("the pre-filter passed over a matching line")
        }
        var late = 0
        if pattern.program.run(line, deadlineNs: 0, steps: &late) != .deadlinePassed {
            fatalError("a deadline already passed was not seen")
        }
    }
    return 0
}
