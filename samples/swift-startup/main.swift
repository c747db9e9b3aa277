// swift-startup: Swift start-up work hidden in a default argument and a lazy global.
//
// Built (module name is always SwiftStartup, so mangled names do not depend on the file name):
//   swiftc -Onone -g -parse-as-library -module-name SwiftStartup main.swift -o DIR/swift-startup/swift-startup
//   swiftc -O     -g -parse-as-library -module-name SwiftStartup main.swift -o DIR/swift-startup/swift-startup-O
//   pairs: -D PREMAIN_HEAD: service default cost 60 ms, not 30; -D PREMAIN_HEAD_LAZY: global 35 ms, not 15.
// Shows (facts, see samples/README.md for the exact mangled names):
//   - `HomeViewModel.init(summaryService: SummaryService = SummaryService())`: the default
//     argument generator (mangled suffix `fA_`) constructs SummaryService, whose init
//     busy-waits 30 ms (env PREMAIN_SAMPLE_COST_SERVICE_MS), logged "swift:defaultArgument";
//   - the global `let homeCatalog` is lazily initialized by a once-initializer (suffix `WZ`)
//     that busy-waits 15 ms (env PREMAIN_SAMPLE_COST_GLOBAL_MS), logged "swift:lazyGlobal";
//   - log lines go to $PREMAIN_SAMPLE_LOG in the shared format
//     "<id> <start_ns> <end_ns> <duration_ms>"; "main" is logged first (Swift runs this work
//     after main starts), then swift:defaultArgument, then swift:lazyGlobal;
//   - prints "swift-startup: home ready (<n> items)" and exits 0. Glibc only, no Foundation.
#if canImport(Glibc)
import Glibc
#endif

func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Returns PREMAIN_SAMPLE_COST_<name>_MS when it holds a non-negative integer, else `fallback`.
func configuredCostMs(_ name: String, fallback: UInt64) -> UInt64 {
    guard let raw = getenv("PREMAIN_SAMPLE_COST_\(name)_MS"),
          let value = UInt64(String(cString: raw)) else { return fallback }
    return value
}

func busyWait(milliseconds: UInt64) {
    let until = monotonicNanoseconds() + milliseconds * 1_000_000
    while monotonicNanoseconds() < until {}
}

/// Appends "<id> <start> <end> <ms with 3 decimals>" to $PREMAIN_SAMPLE_LOG when it is set.
func selfTimingLog(_ id: String, start: UInt64, end: UInt64) {
    guard let path = getenv("PREMAIN_SAMPLE_LOG"), path.pointee != 0 else { return }
    let micros = (end - start) / 1_000
    let fraction = String(micros % 1_000)
    let padded = String(repeating: "0", count: 3 - fraction.count) + fraction
    let line = "\(id) \(start) \(end) \(micros / 1_000).\(padded)\n"
    let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    var bytes = Array(line.utf8)
    _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

#if PREMAIN_HEAD
let serviceDefaultCostMs: UInt64 = 60
#else
let serviceDefaultCostMs: UInt64 = 30
#endif

final class SummaryService {
    let summaries: [Int]

    init() {
        let start = monotonicNanoseconds()
        busyWait(milliseconds: configuredCostMs("SERVICE", fallback: serviceDefaultCostMs))
        summaries = [1, 2, 3]
        selfTimingLog("swift:defaultArgument", start: start, end: monotonicNanoseconds())
    }
}

func makeHomeCatalog() -> [Int] {
    let start = monotonicNanoseconds()
    busyWait(milliseconds: configuredCostMs("GLOBAL", fallback: catalogCostMs))
    let catalog = [10, 20, 30, 40]
    selfTimingLog("swift:lazyGlobal", start: start, end: monotonicNanoseconds())
    return catalog
}

/// A global `let` outside top-level code: initialized lazily, once, on first access.
let homeCatalog: [Int] = makeHomeCatalog()

final class HomeViewModel {
    let summaryService: SummaryService

    init(summaryService: SummaryService = SummaryService()) {
        self.summaryService = summaryService
    }

    var itemCount: Int { summaryService.summaries.count + homeCatalog.count }
}

@main
struct SwiftStartup {
    static func main() {
        let now = monotonicNanoseconds()
        selfTimingLog("main", start: now, end: now)
        // A second entry point that never builds the home model (the launch matrix's `version`).
        if CommandLine.arguments.dropFirst().first == "--version" {
            print("swift-startup 1.0")
            return
        }
        let model = HomeViewModel()
        print("swift-startup: home ready (\(model.itemCount) items)")
    }
}

// After everything else, so that the lines above keep their numbers.
#if PREMAIN_HEAD_LAZY
var catalogCostMs: UInt64 { 35 }  // computed: no lazy global of its own
#else
var catalogCostMs: UInt64 { 15 }
#endif
