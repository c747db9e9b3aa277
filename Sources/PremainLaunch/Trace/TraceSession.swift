import CTrace
import Dispatch
import LosslessText
import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

#if arch(x86_64)  // the ptrace engine knows x86-64 only (see `Tracer.isSupported`)
    /// One traced launch: spawns the target stopped at exec, follows the objects the loader maps,
    /// plants int3 on every probe and marker, times calls until the window's milestone, then ends
    /// the whole process group and reaps it.
    ///
    /// Must run on one thread from start to end: ptrace ties a tracee to the thread that traces it.
    final class TraceSession {
        struct Frame {
            var probe: Int
            var returnAddress: UInt64?  // nil: inlined copy, ends at one of the probe's exits
            var entrySP: UInt64
            var startNs: UInt64
            var entryHandlingNs: UInt64
            /// The same function is already open below this frame (recursion).
            var recursive: Bool
            var nestedStops = 0
            var nestedHandlingNs: UInt64 = 0
            /// Completed calls of traced functions directly inside this one (for exclusive time).
            var children = TracedCall.Children()
        }

        struct Site {
            var probes: [Int] = []
            var markers: Set<TraceMarker> = []
            var returnRefs = 0
            var exitOf: [Int] = []
            var isEmpty: Bool { probes.isEmpty && markers.isEmpty && returnRefs == 0 && exitOf.isEmpty }
        }

        struct RuntimeProbe {
            var probe: TraceProbe
            var exits: Set<UInt64>
            var hits = 0
            var armed = true
            var calls: [TracedCall] = []
            var unfinished = 0
            /// Which program image it was planted in: 1, then 2 after the first execve, …
            var image = 1
        }

        /// The program to exec, already resolved (no PATH search here).
        let executable: String
        /// The run's settings: `command` is argv, `cpu` pins the target (the tracer thread is
        /// pinned by `Tracer`, once for the whole series), `outputFD` takes its stdout and stderr.
        let options: TraceOptions
        let planner: ProbePlanner

        var table = BreakpointTable()
        var everInserted = Set<UInt64>()
        var sites: [UInt64: Site] = [:]
        var probes: [RuntimeProbe] = []
        var threads: [pid_t: [Frame]] = [:]
        var planted = Set<String>()
        var executablePath = ""
        var leader: pid_t = 0
        var expectedThreads = Set<pid_t>()
        var expectedForks = Set<pid_t>()
        /// Processes the target started (forked children, vfork children after exec, and theirs):
        /// they carry no breakpoints and are only kept traced, so that PTRACE_O_EXITKILL ends them
        /// if premain dies, and signals are passed on.
        var followed = Set<pid_t>()
        var expectedFollowed = Set<pid_t>()
        var earlyStops = Set<pid_t>()
        var vforkChildren = Set<pid_t>()
        /// Threads blocked in vfork until their child execs or exits: they run no code.
        var vforkParents = Set<pid_t>()
        /// Threads sent a SIGSTOP by premain that has not been seen yet (swallowed when it comes).
        var stopsSent = Set<pid_t>()
        /// Stops collected while stopping other threads, handled before the next wait.
        var deferred: [(pid: pid_t, status: WaitStatus, seenNs: UInt64)] = []
        /// When the current stop was first seen (earlier than its handling for a deferred stop).
        var stopSeenNs: UInt64 = 0
        var mainFound = false
        var windowOpen = true
        var birthNs: UInt64 = 0
        var milestones: [String: Double] = [:]
        var outcome: TraceOutcome?
        var untimed: [UntimedFunction] = []
        var notes: [String] = []
        /// Whether this run's tracer thread got `Tracer.tracerNice`.
        var priorityRaised = false
        /// The `--until` function was planted in some object.
        var untilPlanted = false
        /// The program image being traced: 1, then one more at each execve of the target.
        var image = 1
        /// An in-memory file taking the target's stderr (when output is not shown), read after the
        /// run to explain a failure.
        var stderrCapture: Int32 = -1

        init(executable: String, options: TraceOptions, planner: ProbePlanner) {
            self.executable = executable
            self.options = options
            self.planner = planner
        }

        /// Runs the launch. Throws `TraceError` when the target cannot be started; every other
        /// problem ends up in the record's outcome and notes.
        func run() throws(TraceError) -> TraceRunRecord {
            let pid = try spawn()
            leader = pid
            options.spawned?(pid, birthNs)
            // The tracer's wake-up latency at a return breakpoint is added to the call being
            // timed: raise this thread's priority for the run when allowed (root). The target was
            // forked before, so it keeps its own priority.
            let tid = id_t(ctrace_thread_id())
            errno = 0
            let previousNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid)
            let raised =
                errno == 0 && setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, Tracer.tracerNice) == 0
            defer { if raised { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, previousNice) } }
            priorityRaised = raised
            ctrace_guard_add(pid)
            let watchdog = DispatchWorkItem { kill(-pid, SIGKILL) }
            if let timeout = options.timeoutSeconds {
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
            }
            defer {
                watchdog.cancel()
                ctrace_guard_remove(pid)
            }
            threads[pid] = []
            guard let first = waitForThread(pid), case .stopped(SIGTRAP, _) = first.status else {
                kill(-pid, SIGKILL)
                drain()
                throw TraceError.notStoppedAtExec(executable)
            }
            do {
                try Ptrace.setOptions(
                    pid,
                    Ptrace.optionExitKill | Ptrace.optionTraceClone | Ptrace.optionTraceFork
                        | Ptrace.optionTraceVFork | Ptrace.optionTraceVForkDone | Ptrace.optionTraceExec)
                setUpImage(pid)
                try Ptrace.resume(pid)
            } catch {
                kill(-pid, SIGKILL)
                drain()
                throw TraceError.ptrace(error.description)
            }
            loop()
            drain()
            return record()
        }

        // MARK: - Start and end

        func spawn() throws(TraceError) -> pid_t {
            var stderrFD = options.stderrFD >= 0 ? options.stderrFD : options.outputFD
            if options.outputFD >= 0, options.stderrFD < 0 {
                stderrCapture = max(-1, ctrace_memfd("premain-trace-stderr"))
                if stderrCapture >= 0 { stderrFD = stderrCapture }
            }
            var spawnOptions = ctrace_spawn_options(
                cpu: options.cpu ?? -1, traceme: 1, stdinFD: options.stdinFD,
                stdoutFD: options.outputFD, stderrFD: stderrFD, fifoPrefix: nil,
                cgroupProcsFD: options.cgroupProcsFD, cwdFD: options.cwdFD)
            var result = ctrace_spawn_result()
            let pid = CStringArray.with(options.command) { argv in
                CStringArray.with(options.environment) { envp in
                    ProcessLauncher.withOptionalCString(options.fifoPrefix) { prefix in
                        spawnOptions.fifoPrefix = prefix
                        return LosslessUTF8.withCString(executable) { path in
                            ctrace_spawn(path, argv, envp, &spawnOptions, &result)
                        }
                    }
                }
            }
            guard pid > 0 else {
                throw TraceError.cannotStart(executable, String(cString: strerror(-pid)))
            }
            birthNs = result.birthNs > 0 ? result.birthNs : MonotonicClock.nowNs()
            if result.fifoErrno != 0 {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                throw TraceError.cannotStart(
                    executable, "cannot create the LD_DEBUG_OUTPUT fifo: \(String(cString: strerror(result.fifoErrno)))"
                )
            }
            if result.execErrno != 0 {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                throw TraceError.cannotStart(executable, String(cString: strerror(result.execErrno)))
            }
            return pid
        }

        /// The first 2 KiB the target wrote to stderr (when it was captured); closes the capture.
        func takeStderrHead() -> String {
            guard stderrCapture >= 0 else { return "" }
            defer {
                close(stderrCapture)
                stderrCapture = -1
            }
            var buffer = [UInt8](repeating: 0, count: 2048)
            let count = buffer.withUnsafeMutableBytes { pread(stderrCapture, $0.baseAddress, $0.count, 0) }
            return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
        }

        /// Kills what is left of the group and reaps every tracee, so nothing stays stopped.
        func drain() {
            kill(-leader, SIGKILL)
            for pid in Array(threads.keys) + Array(expectedThreads) + Array(earlyStops) + Array(vforkChildren)
                + Array(followed) + Array(expectedFollowed)
            {
                kill(pid, SIGKILL)
            }
            let windowEnded = !windowOpen && options.until != .exit
            while let (pid, status) = waitForThread(-leader) {
                // Frames of killed threads stay in `threads`: `record()` counts them as unfinished.
                if status.isTermination, pid == leader, outcome == nil, !windowEnded { threadEnded(pid, status) }
            }
            for pid in Array(threads.keys) where pid != leader {
                _ = waitForThread(pid, noHang: true)
            }
            // Followed processes that left the group: killed above, reaped here.
            for pid in followed.union(expectedFollowed) {
                _ = waitForThread(pid)
            }
            followed = []
            expectedFollowed = []
        }

        /// Milliseconds from the target's birth to now.
        func millisecondsSinceBirth() -> Double {
            MonotonicClock.milliseconds(from: birthNs, to: MonotonicClock.nowNs())
        }

        func record() -> TraceRunRecord {
            // Calls still open when the window closed (or the target died) did not return in it.
            for (_, frames) in threads { for frame in frames { probes[frame.probe].unfinished += 1 } }
            threads = [:]
            var functions: [TracedFunctionKey: (probe: TraceProbe, calls: [TracedCall], hits: Int, capped: Bool)] = [:]
            var unfinished: [TracedFunctionKey: Int] = [:]
            for runtime in probes where runtime.hits > 0 {
                let key = TracedFunctionKey(
                    object: runtime.probe.object, symbol: runtime.probe.symbol,
                    entry: runtime.probe.entry, image: runtime.image)
                var entry = functions[key] ?? (runtime.probe, [], 0, false)
                entry.calls += runtime.calls
                entry.hits += runtime.hits
                entry.capped = entry.capped || runtime.hits >= options.maxCalls
                functions[key] = entry
                if runtime.unfinished > 0 { unfinished[key, default: 0] += runtime.unfinished }
            }
            var finalOutcome = outcome ?? .timedOut
            let elapsed = millisecondsSinceBirth() / 1000
            if !windowOpen, options.until != .exit {
                finalOutcome = .milestoneReached(options.until.description)
            } else if finalOutcome == .killedBySignal(SIGKILL), let timeout = options.timeoutSeconds, elapsed >= timeout
            {
                finalOutcome = .timedOut
            }
            if finalOutcome == .timedOut { milestones["exit"] = nil }  // premain's kill, not an exit
            var record = TraceRunRecord(
                functions: functions, unfinished: unfinished,
                milestones: milestones, outcome: finalOutcome, untimed: untimed, notes: notes,
                tracerPriorityRaised: priorityRaised)
            record.stderrHead = takeStderrHead()
            if case .symbol = options.until { record.untilFound = untilPlanted }
            return record
        }
    }
#endif
