import CTrace
import Dispatch
import Glibc
import PremainAudit
import PremainModel
import Synchronization

/// `measure --until SYMBOL`: the launch runs under the trace engine with markers only (the
/// loader's hook, main, the first write and SYMBOL; no function is timed), on a thread of its
/// own, since ptrace ties a tracee to the thread that started it. This thread pumps the loader's
/// FIFO and the output as for any launch; the tracer ends the process group at SYMBOL.
extension ProcessLauncher {
    func launchTraced(
        _ request: LaunchRequest, until symbol: String, environment: [String], fifoPrefix: String?,
        capture: inout OutputCapture, stdinFD: Int32, cwdFD: Int32, cgroup: TargetCgroup?
    ) throws(LaunchError) -> LaunchSample {
        #if arch(x86_64)
            var options = TraceOptions(command: request.arguments, environment: environment)
            options.until = .symbol(symbol)
            options.runs = 1
            options.warmup = 0
            options.cpu = request.targetCPU.map(Int32.init)
            options.timeoutSeconds = request.timeoutSeconds ?? 7 * 86_400
            options.outputFD = capture.stdoutWrite
            options.stderrFD = capture.stderrWrite
            options.stdinFD = stdinFD
            options.fifoPrefix = fifoPrefix
            options.cgroupProcsFD = cgroup?.procsFD ?? -1
            options.cwdFD = cwdFD
            options.holdIdleLatency = false
            let started = TracedStart()
            options.spawned = { pid, birth in started.set(pid: pid, birthNs: birth) }
            let planner = TracedStopPlanners.shared.planner(for: symbol)
            let executable = request.executablePath
            let traceOptions = options
            let finished = DispatchSemaphore(value: 0)
            let outcome = TracedOutcome()
            DispatchQueue.global().async {
                do throws(TraceError) {
                    let record = try Tracer.traceOnce(executable, options: traceOptions, planner: planner.value)
                    outcome.set(.success(record))
                } catch {
                    outcome.set(.failure(error))
                }
                started.set(pid: 0, birthNs: 0)  // wakes a waiter when spawning failed
                finished.signal()
            }
            let (pid, birthNs) = started.wait()
            guard pid > 0 else {
                finished.wait()
                if case .cannotStart(_, let why)? = outcome.error {
                    let session = LaunchSession(request: request, pid: 0, birthNs: MonotonicClock.nowNs())
                    return session.sample(
                        outcome: LaunchOutcome(kind: .execFailed, message: "cannot execute \(executable): \(why)"))
                }
                throw LaunchError(outcome.error.map(\.description) ?? "the traced launch did not start")
            }
            ctrace_guard_add(pid)
            defer { ctrace_guard_remove(pid) }
            capture.closeChildEnds()
            let fifoFD = fifoPrefix.map { open("\($0)\(pid)", O_RDONLY | O_NONBLOCK | O_CLOEXEC) } ?? -1
            let pidFD = ctrace_pidfd_open(pid)
            defer { [fifoFD, pidFD].filter { $0 >= 0 }.forEach { close($0) } }
            var session = LaunchSession(request: request, pid: pid, birthNs: birthNs)
            let ending = pidFD >= 0 ? session.pump(fifo: fifoFD, capture: &capture, pidFD: pidFD) : .exited
            if ending == .timedOut { kill(-pid, SIGKILL) }
            finished.wait()
            let reaped = ProcessGroupReaper.finish(pgid: pid, cgroup: cgroup)
            guard case .success(let record)? = outcome.result else {
                throw LaunchError(outcome.error?.description ?? "the traced launch failed")
            }
            var sample: LaunchSample
            switch record.outcome {
            case .milestoneReached:
                session.readyNs = record.milestones[symbol].map { birthNs + UInt64(max(0, $0) * 1e6) }
                sample = session.sample(
                    outcome: LaunchOutcome(
                        kind: .stopped, message: "stopped at \(symbol) as asked; its process group was killed",
                        lingeringProcessesKilled: reaped.othersKilled))
                sample.exitMs = nil
            case .exited(let code):
                let exited = Self.outcome(
                    status: code << 8, timedOut: false, timeout: nil,
                    stderrHead: session.stderrHeadText, lingering: reaped.othersKilled)
                let why = record.untilFound ? nil : "no function of that name is in the objects it loaded"
                sample = session.sample(outcome: Self.notReached(exited, stop: .symbol(symbol), why: why))
            case .killedBySignal(let signal):
                sample = session.sample(
                    outcome: Self.outcome(
                        status: signal, timedOut: false, timeout: nil,
                        stderrHead: session.stderrHeadText, lingering: reaped.othersKilled))
            case .timedOut:
                sample = session.sample(
                    outcome: Self.outcome(
                        status: nil, timedOut: true, timeout: request.timeoutSeconds,
                        stderrHead: session.stderrHeadText, lingering: reaped.othersKilled))
            }
            sample.outputThroughPipe = !capture.isNullDevice
            if reaped.leftBehind {
                sample.outcome.processesLeftBehind = true
                sample.outcome.message += "; processes of its group outlived SIGKILL"
            }
            return sample
        #else
            throw LaunchError("--until FUNCTION needs the ptrace engine, which knows x86-64 only")
        #endif
    }
}

/// The pid and birth a traced launch reports from its thread; the first report wins.
final class TracedStart: Sendable {
    private let value = Mutex<(Int32, UInt64)?>(nil)
    private let ready = DispatchSemaphore(value: 0)

    func set(pid: Int32, birthNs: UInt64) {
        let first = value.withLock { current -> Bool in
            guard current == nil else { return false }
            current = (pid, birthNs)
            return true
        }
        if first { ready.signal() }
    }

    func wait() -> (Int32, UInt64) {
        ready.wait()
        return value.withLock { $0 } ?? (0, 0)
    }
}

/// The traced launch's record or error, handed from its thread.
final class TracedOutcome: Sendable {
    private let value = Mutex<Result<TraceRunRecord, TraceError>?>(nil)

    func set(_ result: Result<TraceRunRecord, TraceError>) { value.withLock { $0 = result } }

    var result: Result<TraceRunRecord, TraceError>? { value.withLock { $0 } }

    var error: TraceError? {
        if case .failure(let error)? = result { return error }
        return nil
    }
}

/// One markers-only planner per `--until` function for the life of the process: each object's
/// symbols are read once, not at every stop of every run (which the target would wait for).
final class TracedStopPlanners: Sendable {
    static let shared = TracedStopPlanners()

    /// A planner used by one launch at a time.
    final class Box: @unchecked Sendable {
        let value: ProbePlanner
        init(_ value: ProbePlanner) { self.value = value }
    }

    private let planners = Mutex<[String: Box]>([:])

    func planner(for symbol: String) -> Box {
        planners.withLock { planners in
            if let box = planners[symbol] { return box }
            let box = Box(
                ProbePlanner(
                    functionQueries: [], untilSymbol: symbol,
                    debugLocator: DebugFileLocator(extraDirectories: []), markersOnly: true))
            planners[symbol] = box
            return box
        }
    }
}
