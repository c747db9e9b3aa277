import Foundation
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel
import PremainRender
import PremainSystem

/// The tests' one `Launcher`: it runs nothing, records every request, and answers either
/// from prepared samples in order (instrumented and uninstrumented requests each take the next
/// sample of their own kind) or from a function of the executable and the launch's number
/// (compare's two sides, a copy's contents), for tests of the sessions, the statistics and the
/// renderers.
final class ScriptedLauncher: Launcher, @unchecked Sendable {
    private let lock = NSLock()
    private var script: [LaunchSample]
    private let answer: (@Sendable (LaunchRequest, Int) -> LaunchSample)?
    private(set) var requests: [LaunchRequest] = []

    init(_ script: [LaunchSample]) {
        self.script = script
        answer = nil
    }

    /// Answers launch number `index` (from 1) of the executable at `path` with `make(path, index)`.
    init(_ make: @escaping @Sendable (_ path: String, _ index: Int) -> LaunchSample) {
        script = []
        answer = { request, index in make(request.executablePath, index) }
    }

    /// Answers each request with `make(request)`.
    init(answering make: @escaping @Sendable (LaunchRequest) -> LaunchSample) {
        script = []
        answer = { request, _ in make(request) }
    }

    /// The executables launched, in order.
    var paths: [String] {
        lock.lock()
        defer { lock.unlock() }
        return requests.map(\.executablePath)
    }

    func launch(_ request: LaunchRequest) throws(LaunchError) -> LaunchSample {
        lock.lock()
        defer { lock.unlock() }
        requests.append(request)
        if let answer { return answer(request, requests.count) }
        guard let index = script.firstIndex(where: { $0.instrumented == request.instrumented }) else {
            throw LaunchError("script exhausted")
        }
        return script.remove(at: index)
    }

    /// A successful run: loader lines at fixed offsets, `libMs` in one library's initializers,
    /// `exeMs` in the program's, and main/output/exit right after.
    static func run(libMs: Double, exeMs: Double = 1, shift: Double = 0, instrumented: Bool = true) -> LaunchSample {
        guard instrumented else {
            let exit = 1 + libMs + exeMs + shift
            return LaunchSample(
                birthNs: 0, instrumented: false, loader: nil, firstOutputMs: exit - 0.1,
                firstOutputStream: .stdout, exitMs: exit, outcome: success, stderrHead: "")
        }
        var timeline = LoaderTimeline(loaderStartMs: 0.5 + shift)
        timeline.objects = [.init(name: "libwork.so", neededBy: "app", mappedMs: 0.7 + shift)]
        timeline.loaderDoneMs = 1 + shift
        timeline.initializers = [
            .init(path: "/lib/x86_64-linux-gnu/libc.so.6", startMs: 1 + shift, durationMs: 0, isProgram: false),
            .init(path: "/opt/app/libwork.so", startMs: 1 + shift, durationMs: libMs, isProgram: false),
            .init(path: "app", startMs: 1 + libMs + shift, durationMs: exeMs, isProgram: true),
        ]
        timeline.mainMs = 1 + libMs + exeMs + shift
        timeline.startupCounts = LoaderCounts(symbolLookups: 100, relocationsFromCache: 10, relativeRelocations: 50)
        let main = 1 + libMs + exeMs + shift
        return LaunchSample(
            birthNs: 0, instrumented: true, loader: timeline, firstOutputMs: main + 0.1,
            firstOutputStream: .stdout, exitMs: main + 0.2, outcome: success, stderrHead: "")
    }

    static let success = LaunchOutcome(kind: .success, exitStatus: 0, message: "exited with status 0")
}
