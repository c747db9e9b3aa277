import CTrace
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// One traced launch: spawns the target stopped at exec, follows the objects the loader maps,
/// plants int3 on every probe and marker, times calls until the window's milestone, then ends
/// the whole process group and reaps it.
///
/// Must run on one thread from start to end: ptrace ties a tracee to the thread that traces it.
final class TraceSession {
    struct Configuration: Sendable {
        /// Absolute or relative path of the program (no PATH search here).
        var executable: String
        /// argv, including argv[0].
        var arguments: [String]
        /// envp as "NAME=value".
        var environment: [String]
        var until: TraceWindowEnd
        /// Calls of one function after which its breakpoint is removed.
        var maxCalls: Int
        /// CPU to pin the target to, or `nil`.
        var cpu: Int32?
        /// Descriptor for the target's stdout and stderr, or -1 to share premain's.
        var outputFD: Int32
        /// The group is killed after this many seconds.
        var timeoutSeconds: Double
    }

    private struct Frame {
        var probe: Int
        var returnAddress: UInt64?  // nil: inlined copy, ends at one of the probe's exits
        var entrySP: UInt64
        var startNs: UInt64
        var entryHandlingNs: UInt64
        /// The same function is already open below this frame (recursion).
        var recursive: Bool
        var nestedStops = 0
        var nestedHandlingNs: UInt64 = 0
    }

    private struct Site {
        var probes: [Int] = []
        var markers: Set<TraceMarker> = []
        var returnRefs = 0
        var exitOf: [Int] = []
        var isEmpty: Bool { probes.isEmpty && markers.isEmpty && returnRefs == 0 && exitOf.isEmpty }
    }

    private struct RuntimeProbe {
        var probe: TraceProbe
        var exits: Set<UInt64>
        var hits = 0
        var armed = true
        var calls: [TracedCall] = []
        var unfinished = 0
    }

    private let configuration: Configuration
    private let planner: ProbePlanner

    private var table = BreakpointTable()
    private var everInserted = Set<UInt64>()
    private var sites: [UInt64: Site] = [:]
    private var probes: [RuntimeProbe] = []
    private var threads: [pid_t: [Frame]] = [:]
    private var planted = Set<String>()
    private var executablePath = ""
    private var leader: pid_t = 0
    private var expectedThreads = Set<pid_t>()
    private var expectedForks = Set<pid_t>()
    /// Processes the target started (forked children, vfork children after exec, and theirs):
    /// they carry no breakpoints and are only kept traced, so that PTRACE_O_EXITKILL ends them
    /// if premain dies, and signals are passed on.
    private var followed = Set<pid_t>()
    private var expectedFollowed = Set<pid_t>()
    private var earlyStops = Set<pid_t>()
    private var vforkChildren = Set<pid_t>()
    /// Threads blocked in vfork until their child execs or exits: they run no code.
    private var vforkParents = Set<pid_t>()
    /// Threads sent a SIGSTOP by premain that has not been seen yet (swallowed when it comes).
    private var stopsSent = Set<pid_t>()
    /// Stops collected while stopping other threads, handled before the next wait.
    private var deferred: [(pid: pid_t, status: WaitStatus, seenNs: UInt64)] = []
    /// When the current stop was first seen (earlier than its handling for a deferred stop).
    private var stopSeenNs: UInt64 = 0
    private var mainFound = false
    private var windowOpen = true
    private var birthNs: UInt64 = 0
    private var milestones: [String: Double] = [:]
    private var outcome: TraceOutcome?
    private var untimed: [UntimedFunction] = []
    private var notes: [String] = []
    /// Whether this run's tracer thread got `tracerNice`.
    private(set) var priorityRaised = false
    private var tracerPinned = false
    static let tracerNice: Int32 = -10

    init(configuration: Configuration, planner: ProbePlanner) {
        self.configuration = configuration
        self.planner = planner
    }

    static func nowNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Runs the launch. Throws `TraceError` when the target cannot be started; every other
    /// problem ends up in the record's outcome and notes.
    func run() throws(TraceError) -> TraceRunRecord {
        ctrace_guard_install()
        birthNs = Self.nowNs()
        let pid = try spawn()
        leader = pid
        // The tracer's wake-up latency at a return breakpoint is added to the call being
        // timed: raise this thread's priority for the run when allowed (root). The target was
        // forked before, so it keeps its own priority.
        let tid = id_t(ctrace_thread_id())
        errno = 0
        let previousNice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid)
        let raised = errno == 0 && setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, Self.tracerNice) == 0
        defer { if raised { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, previousNice) } }
        priorityRaised = raised
        // With --cpu the tracer shares the target's CPU: every stop then wakes the tracer on
        // the CPU the target just left, so the cost of a stop is the same in every run.
        if let cpu = configuration.cpu, ctrace_pin_self(cpu) == 0 {
            tracerPinned = true
        }
        defer { if tracerPinned { _ = ctrace_unpin_self() } }
        ctrace_guard_add(pid)
        let watchdog = DispatchWorkItem { kill(-pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + configuration.timeoutSeconds, execute: watchdog)
        defer {
            watchdog.cancel()
            ctrace_guard_remove(pid)
        }
        threads[pid] = []
        guard let first = waitForThread(pid), case .stopped(SIGTRAP, _) = first.status else {
            kill(-pid, SIGKILL)
            drain()
            throw TraceError.notStoppedAtExec(configuration.executable)
        }
        do {
            try Ptrace.setOptions(pid, Ptrace.optionExitKill | Ptrace.optionTraceClone | Ptrace.optionTraceFork
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

    // MARK: - Event loop

    private func loop() {
        while windowOpen || configuration.until == .exit {
            guard let (pid, status) = waitForTracee() else { return }
            switch status {
            case .exited, .signaled:
                if followed.remove(pid) != nil { continue }
                threadEnded(pid, status)
                if pid == leader { return }
            case .stopped(let signal, let event):
                do {
                    try handleStop(pid, signal: signal, event: event)
                } catch {
                    notes.append(error.description)
                    try? Ptrace.resume(pid)
                }
                if !windowOpen && configuration.until != .exit { return }
            case .other:
                continue
            }
        }
    }

    /// Waits for the next event of the target's process group; falls back to polling known
    /// threads if the group has left its group (setsid).
    private func waitForTracee() -> (pid_t, WaitStatus)? {
        if !deferred.isEmpty {
            let next = deferred.removeFirst()
            stopSeenNs = next.seenNs
            return (next.pid, next.status)
        }
        defer { stopSeenNs = Self.nowNs() }
        if let event = waitForThread(-leader) { return event }
        while !threads.isEmpty {
            for pid in Array(threads.keys) + Array(followed) {
                if let event = waitForThread(pid, noHang: true) { return event }
            }
            usleep(200)
        }
        return nil
    }

    private func threadEnded(_ pid: pid_t, _ status: WaitStatus) {
        if let frames = threads.removeValue(forKey: pid) {
            for frame in frames { abandon(frame, stopped: nil) }
        }
        vforkChildren.remove(pid)
        expectedThreads.remove(pid)
        guard pid == leader else { return }
        milestones["exit"] = milliseconds(since: Self.nowNs())
        switch status {
        case .exited(let code): outcome = .exited(code: code)
        case .signaled(let signal): outcome = .killedBySignal(signal)
        default: break
        }
    }

    private func handleStop(_ pid: pid_t, signal: Int32, event: Int32) throws(PtraceError) {
        if followed.contains(pid) { return try handleFollowed(pid, signal: signal, event: event) }
        if event != 0 { return try handleEvent(pid, event: event) }
        if signal == SIGSTOP, stopsSent.remove(pid) != nil {
            // premain's own SIGSTOP, arriving after the thread had stopped for something else.
            return try Ptrace.resume(pid)
        }
        if threads[pid] == nil {
            // A new thread or child stopped before its parent's event arrived.
            if signal == SIGSTOP {
                if expectedThreads.remove(pid) != nil {
                    threads[pid] = threads[pid] ?? []
                    return try Ptrace.resume(pid)
                }
                if expectedForks.remove(pid) != nil { return adoptForkChild(pid) }
                if expectedFollowed.remove(pid) != nil {
                    followed.insert(pid)
                    return try Ptrace.resume(pid)
                }
                earlyStops.insert(pid)
                return
            }
        } else if signal == SIGSTOP, expectedThreads.remove(pid) != nil {
            return try Ptrace.resume(pid)
        }
        if signal == SIGTRAP { return try handleTrap(pid) }
        // A signal for the target: pass it on (a group-stop has no siginfo and is resumed).
        if Ptrace.signalInfo(pid) == nil { return try Ptrace.resume(pid) }
        try Ptrace.resume(pid, signal: signal)
    }

    private func handleEvent(_ pid: pid_t, event: Int32) throws(PtraceError) {
        switch event {
        case WaitStatus.eventClone, WaitStatus.eventVFork:
            let child = pid_t(truncatingIfNeeded: try Ptrace.eventMessage(pid))
            threads[child] = threads[child] ?? []
            if event == WaitStatus.eventVFork {
                vforkChildren.insert(child)
                vforkParents.insert(pid)
            }
            if earlyStops.remove(child) != nil { try Ptrace.resume(child) } else { expectedThreads.insert(child) }
        case WaitStatus.eventVForkDone:
            vforkParents.remove(pid)
        case WaitStatus.eventFork:
            let child = pid_t(truncatingIfNeeded: try Ptrace.eventMessage(pid))
            if earlyStops.remove(child) != nil { adoptForkChild(child) } else { expectedForks.insert(child) }
        case WaitStatus.eventExec:
            if vforkChildren.contains(pid) {
                // A vfork child replaced the shared memory with its own image: it carries no
                // breakpoints any more; follow it like a forked child.
                vforkChildren.remove(pid)
                threads[pid] = nil
                followed.insert(pid)
                return try Ptrace.resume(pid)
            }
            // The target exec'ed: the breakpoints went with the old image. Start over.
            for (_, frames) in threads { for frame in frames { probes[frame.probe].unfinished += 1 } }
            threads = [pid: []]
            table.forgetAll()
            everInserted = []
            sites = [:]
            planted = []
            mainFound = false
            notes.append("the target called execve; tracing continued in the new image")
            setUpImage(pid)
        default:
            break
        }
        try Ptrace.resume(pid)
    }

    /// A forked child holds a copy of the int3 bytes: put the original bytes back, then let it
    /// run, followed (not timed) until the run ends.
    private func adoptForkChild(_ child: pid_t) {
        let failed = table.restoreCopy(in: child)
        if failed > 0 { notes.append("\(failed) breakpoints could not be removed from forked child \(child)") }
        followed.insert(child)
        try? Ptrace.resume(child)
    }

    /// A stop of a followed process: new processes and threads are followed too, signals are
    /// passed on, everything else resumes.
    private func handleFollowed(_ pid: pid_t, signal: Int32, event: Int32) throws(PtraceError) {
        switch event {
        case WaitStatus.eventFork, WaitStatus.eventVFork, WaitStatus.eventClone:
            let child = pid_t(truncatingIfNeeded: try Ptrace.eventMessage(pid))
            followed.insert(child)
            if earlyStops.remove(child) != nil { try Ptrace.resume(child) } else { expectedFollowed.insert(child) }
            return try Ptrace.resume(pid)
        case 0:
            if signal == SIGSTOP, expectedFollowed.remove(pid) != nil { return try Ptrace.resume(pid) }
            if Ptrace.signalInfo(pid) == nil { return try Ptrace.resume(pid) }
            return try Ptrace.resume(pid, signal: signal)
        default:
            return try Ptrace.resume(pid)
        }
    }

    // MARK: - Objects

    private func setUpImage(_ pid: pid_t) {
        executablePath = Self.readLink("/proc/\(pid)/exe") ?? configuration.executable
        refreshObjects(pid)
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Plants probes and markers in every newly mapped object.
    private func refreshObjects(_ pid: pid_t) {
        guard let maps = ProcessMaps(pid: pid) else { return }
        for path in maps.paths where !planted.contains(path) {
            let isExecutable = path == executablePath
            guard let plan = planner.plan(for: path, isMainExecutable: isExecutable) else {
                planted.insert(path)
                continue
            }
            guard let bias = plan.isPositionIndependent ? maps.loadBias(of: path, segments: plan.loadSegments) : 0 else {
                continue  // Not fully mapped yet; try at the next loader stop.
            }
            planted.insert(path)
            untimed += plan.untimed
            for probe in plan.probes {
                let index = probes.count
                probes.append(RuntimeProbe(probe: probe, exits: Set(probe.exits.map { $0 &+ bias })))
                sites[probe.entry &+ bias, default: Site()].probes.append(index)
                for exit in probes[index].exits { sites[exit, default: Site()].exitOf.append(index) }
            }
            for (marker, addresses) in plan.markers {
                if marker == .main { mainFound = true }
                if marker == .write, milestones["firstOutput"] != nil { continue }
                for address in addresses { sites[address &+ bias, default: Site()].markers.insert(marker) }
            }
            var failed = 0
            for probe in plan.probes {
                if !sync(probe.entry &+ bias, pid) { failed += 1 }
                for exit in probe.exits { _ = sync(exit &+ bias, pid) }
            }
            for address in plan.markers.values.joined() { _ = sync(address &+ bias, pid) }
            if failed > 0 { notes.append("\(failed) functions of \(path) could not be patched") }
        }
    }

    /// Makes memory agree with the site at `address`: int3 when it has a role, the original
    /// byte otherwise. Returns `false` when memory could not be written.
    @discardableResult
    private func sync(_ address: UInt64, _ pid: pid_t) -> Bool {
        guard let site = sites[address], !site.isEmpty else {
            sites[address] = nil
            do { try table.remove(address, pid: pid) } catch { return false }
            return true
        }
        do {
            try table.insert(address, pid: pid)
            everInserted.insert(address)
            return true
        } catch {
            sites[address] = nil
            return false
        }
    }

    // MARK: - Breakpoints

    private func handleTrap(_ pid: pid_t) throws(PtraceError) {
        let wake = stopSeenNs
        var regs = try Ptrace.registers(pid)
        let address = regs.rip &- 1
        if table.isInserted(address), sites[address]?.isEmpty ?? true {
            // A leftover int3 (its last role ended while no thread was stopped): remove it.
            sites[address] = nil
            try table.remove(address, pid: pid)
            regs.rip = address
            try Ptrace.setRegisters(pid, regs)
            return try Ptrace.resume(pid)
        }
        guard let site = sites[address], table.isInserted(address) else {
            if everInserted.contains(address), let info = Ptrace.signalInfo(pid), info.si_code == 0x80 {
                // A breakpoint removed after this thread hit it: run the original instruction.
                regs.rip = address
                try Ptrace.setRegisters(pid, regs)
                return try Ptrace.resume(pid)
            }
            return try Ptrace.resume(pid, signal: SIGTRAP)
        }
        var frames = threads[pid] ?? []
        var completed: [(Frame, UInt64)] = []
        if site.returnRefs > 0,
           let index = frames.lastIndex(where: { $0.returnAddress == address && $0.entrySP &+ 8 == regs.rsp }) {
            completed.append((frames[index], wake))
            for frame in frames[(index + 1)...] { abandon(frame, stopped: pid) }
            frames.removeSubrange(index...)
            sites[address]?.returnRefs -= 1
        }
        if !site.exitOf.isEmpty,
           let index = frames.lastIndex(where: { $0.returnAddress == nil && probes[$0.probe].exits.contains(address) }) {
            completed.append((frames[index], wake))
            for frame in frames[(index + 1)...] { abandon(frame, stopped: pid) }
            frames.removeSubrange(index...)
        }
        let openBefore = frames.count
        if windowOpen {
            for index in site.probes where probes[index].armed {
                probes[index].hits += 1
                let recursive = frames.contains { $0.probe == index }
                if probes[index].probe.isInlined {
                    frames.append(Frame(probe: index, returnAddress: nil, entrySP: regs.rsp, startNs: 0,
                                        entryHandlingNs: 0, recursive: recursive))
                } else {
                    let returnAddress = try Ptrace.peek(pid, regs.rsp)
                    frames.append(Frame(probe: index, returnAddress: returnAddress, entrySP: regs.rsp, startNs: 0,
                                        entryHandlingNs: 0, recursive: recursive))
                    sites[returnAddress, default: Site()].returnRefs += 1
                    if !sync(returnAddress, pid) {
                        sites[returnAddress] = nil
                        frames.removeLast()
                        probes[index].unfinished += 1
                    }
                }
                if probes[index].hits >= configuration.maxCalls {
                    probes[index].armed = false
                    sites[address]?.probes.removeAll { $0 == index }
                }
            }
        }
        for marker in site.markers { handleMarker(marker, pid: pid, regs: regs) }
        if !windowOpen, configuration.until != .exit {
            threads[pid] = frames
            return
        }
        sync(address, pid)
        regs.rip = address
        try Ptrace.setRegisters(pid, regs)
        var pendingSignal: Int32 = 0
        if table.isInserted(address), let effect = emulatedEntry(at: address, pid: pid, regs: regs) {
            if let store = effect.store { try Ptrace.poke(pid, store.address, store.value) }
            try Ptrace.setRegisters(pid, effect.registers)
        } else if table.isInserted(address) {
            // While the original byte is back, another thread could run past the breakpoint:
            // with more than one thread, the others are stopped for the step.
            let stopped = stopOtherThreads(except: pid)
            defer { resumeThreads(stopped) }
            try table.remove(address, pid: pid)
            guard let signal = stepOver(pid) else { return }
            pendingSignal = signal
            try table.insert(address, pid: pid)
        }
        let resume = Self.nowNs()
        for (frame, end) in completed {
            record(frame, endNs: end, returnHandlingNs: resume - wake)
        }
        for index in 0..<openBefore {
            frames[index].nestedStops += 1
            frames[index].nestedHandlingNs += resume - wake
        }
        for index in openBefore..<frames.count {
            frames[index].startNs = resume
            frames[index].entryHandlingNs = resume - wake
        }
        threads[pid] = frames
        try Ptrace.resume(pid, signal: pendingSignal)
    }

    /// The effect of the original instruction at `address` when premain can execute it itself.
    private func emulatedEntry(at address: UInt64, pid: pid_t, regs: user_regs_struct) -> EntryInstruction.Effect? {
        guard let word = try? Ptrace.peek(pid, address) else { return nil }
        var bytes = (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        for offset in 0..<4 {
            if let original = table.originals[address &+ UInt64(offset)] { bytes[offset] = original }
        }
        var at = regs
        at.rip = address
        return EntryInstruction.execute(bytes, registers: at)
    }

    /// Stops every other running thread of the target with SIGSTOP and waits until each one is
    /// stopped. Returns the threads premain stopped (to resume after the step); a thread that
    /// stopped for something else first keeps that stop in `deferred` for the main loop.
    private func stopOtherThreads(except pid: pid_t) -> [(pid: pid_t, sinceNs: UInt64)] {
        let waiting = Set(deferred.map(\.pid))
        let running = threads.keys.filter {
            $0 != pid && !vforkParents.contains($0) && !expectedThreads.contains($0) && !stopsSent.contains($0)
                && !waiting.contains($0)
        }
        guard !running.isEmpty else { return [] }
        var signalled: [pid_t] = []
        var wasRunning = Set<pid_t>()
        for thread in running {
            if Self.isRunning(thread, group: vforkChildren.contains(thread) ? thread : leader) { wasRunning.insert(thread) }
            let sent = vforkChildren.contains(thread) ? kill(thread, SIGSTOP) : ctrace_tgkill(leader, thread, SIGSTOP)
            if sent == 0 {
                stopsSent.insert(thread)
                signalled.append(thread)
            }
        }
        var stopped: [(pid: pid_t, sinceNs: UInt64)] = []
        for thread in signalled {
            guard let (_, status) = waitForThread(thread) else { continue }
            switch status {
            case .stopped(SIGSTOP, 0):
                stopsSent.remove(thread)
                // A thread that was blocked (in a join, a sleep) lost nothing by being held.
                stopped.append((thread, wasRunning.contains(thread) ? Self.nowNs() : 0))
            default:
                // A breakpoint, an event or its end: handled later; our SIGSTOP is swallowed then.
                deferred.append((thread, status, Self.nowNs()))
            }
        }
        return stopped
    }

    /// `true` when the thread is running or runnable (state R in /proc/PID/task/TID/stat).
    private static func isRunning(_ thread: pid_t, group: pid_t) -> Bool {
        guard let stat = FileManagerLite.readText("/proc/\(group)/task/\(thread)/stat"),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "R"
    }

    /// Resumes threads stopped by `stopOtherThreads`. The time each was held is premain's, not
    /// the thread's: it is added to the thread's open calls like any nested stop.
    private func resumeThreads(_ stopped: [(pid: pid_t, sinceNs: UInt64)]) {
        let now = Self.nowNs()
        for (thread, since) in stopped {
            if since > 0, var frames = threads[thread] {
                for index in frames.indices {
                    frames[index].nestedStops += 1
                    frames[index].nestedHandlingNs += now &- since
                }
                threads[thread] = frames
            }
            try? Ptrace.resume(thread)
        }
    }

    /// Single-steps `pid` over the original instruction. Returns the signal to deliver when the
    /// thread is resumed (0 for none), or `nil` when the thread ended meanwhile (its end is
    /// recorded here, since its status was consumed).
    private func stepOver(_ pid: pid_t) -> Int32? {
        var pending: Int32 = 0
        for _ in 0..<8 {
            guard (try? Ptrace.step(pid)) != nil else { return nil }
            guard let (_, status) = waitForThread(pid) else { return nil }
            switch status {
            case .stopped(SIGTRAP, 0):
                return pending
            case .stopped(let signal, _):
                // A signal arrived before the instruction ran: deliver it after the step.
                pending = signal
            case .exited, .signaled:
                threadEnded(pid, status)
                return nil
            case .other:
                continue
            }
        }
        return pending
    }

    private func handleMarker(_ marker: TraceMarker, pid: pid_t, regs: user_regs_struct) {
        switch marker {
        case .loaderHook:
            refreshObjects(pid)
        case .main:
            reach("main")
            if configuration.until == .main { windowOpen = false }
        case .libcStartMain:
            guard !mainFound, regs.rdi != 0 else { return }
            mainFound = true
            sites[regs.rdi, default: Site()].markers.insert(.main)
            sync(regs.rdi, pid)
        case .write:
            guard regs.rdi == 1 || regs.rdi == 2 else { return }
            reach("firstOutput")
            if configuration.until == .firstOutput { windowOpen = false }
            for (address, site) in sites where site.markers.contains(.write) {
                sites[address]?.markers.remove(.write)
                if address != regs.rip &- 1 { sync(address, pid) }
            }
        case .until:
            if case .symbol(let name) = configuration.until {
                reach(name)
                windowOpen = false
            }
        }
    }

    private func reach(_ milestone: String) {
        if milestones[milestone] == nil { milestones[milestone] = milliseconds(since: Self.nowNs()) }
    }

    private func record(_ frame: Frame, endNs: UInt64, returnHandlingNs: UInt64) {
        let call = TracedCall(rawNs: endNs &- frame.startNs, nestedStops: frame.nestedStops,
                              nestedHandlingNs: frame.nestedHandlingNs,
                              handlingNs: frame.entryHandlingNs + returnHandlingNs, recursive: frame.recursive)
        probes[frame.probe].calls.append(call)
        // Count this call's own stops in every frame still open around it: done by the caller.
    }

    /// Gives up on a call that will not return (its thread ended, or an outer frame returned
    /// first). Its return breakpoint is removed now when a thread is stopped, else at its next hit.
    private func abandon(_ frame: Frame, stopped pid: pid_t?) {
        probes[frame.probe].unfinished += 1
        if let returnAddress = frame.returnAddress, sites[returnAddress] != nil {
            sites[returnAddress]?.returnRefs -= 1
            if let pid { sync(returnAddress, pid) }
        }
    }

    // MARK: - Start and end

    private func spawn() throws(TraceError) -> pid_t {
        let argv = CStringList(configuration.arguments)
        let envp = CStringList(configuration.environment)
        defer {
            argv.free()
            envp.free()
        }
        var options = ctrace_spawn_options(cpu: configuration.cpu ?? -1, traceme: 1, stdinFD: -1,
                                           stdoutFD: configuration.outputFD, stderrFD: configuration.outputFD)
        let pid = ctrace_spawn(configuration.executable, argv.pointers, envp.pointers, &options)
        guard pid > 0 else {
            throw TraceError.cannotStart(configuration.executable, String(cString: strerror(-pid)))
        }
        return pid
    }

    /// Kills what is left of the group and reaps every tracee, so nothing stays stopped.
    private func drain() {
        kill(-leader, SIGKILL)
        for pid in Array(threads.keys) + Array(expectedThreads) + Array(earlyStops) + Array(vforkChildren)
            + Array(followed) + Array(expectedFollowed) {
            kill(pid, SIGKILL)
        }
        let windowEnded = !windowOpen && configuration.until != .exit
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

    private func milliseconds(since end: UInt64) -> Double {
        Double(end &- birthNs) / 1e6
    }

    private func record() -> TraceRunRecord {
        // Calls still open when the window closed (or the target died) did not return in it.
        for (_, frames) in threads { for frame in frames { probes[frame.probe].unfinished += 1 } }
        threads = [:]
        var functions: [TracedFunctionKey: (probe: TraceProbe, calls: [TracedCall], hits: Int, capped: Bool)] = [:]
        var unfinished: [TracedFunctionKey: Int] = [:]
        for runtime in probes where runtime.hits > 0 {
            let key = TracedFunctionKey(object: runtime.probe.object, symbol: runtime.probe.symbol,
                                        inlinedAt: runtime.probe.isInlined ? runtime.probe.entry : nil)
            var entry = functions[key] ?? (runtime.probe, [], 0, false)
            entry.calls += runtime.calls
            entry.hits += runtime.hits
            entry.capped = entry.capped || runtime.hits >= configuration.maxCalls
            functions[key] = entry
            if runtime.unfinished > 0 { unfinished[key, default: 0] += runtime.unfinished }
        }
        var finalOutcome = outcome ?? .timedOut
        let elapsed = Double(Self.nowNs() &- birthNs) / 1e9
        if !windowOpen, configuration.until != .exit {
            finalOutcome = .milestoneReached(configuration.until.description)
        } else if finalOutcome == .killedBySignal(SIGKILL), elapsed >= configuration.timeoutSeconds {
            finalOutcome = .timedOut
        }
        if finalOutcome == .timedOut { milestones["exit"] = nil }  // premain's kill, not an exit
        return TraceRunRecord(birthNs: birthNs, functions: functions, unfinished: unfinished,
                              milestones: milestones, outcome: finalOutcome, untimed: untimed, notes: notes,
                              tracerPriorityRaised: priorityRaised)
    }
}

/// Why a traced launch could not start.
public enum TraceError: Error, CustomStringConvertible, Sendable {
    case cannotStart(String, String)
    case notStoppedAtExec(String)
    case ptrace(String)
    case noCalibrationTarget(String)

    public var description: String {
        switch self {
        case .cannotStart(let path, let reason): return "cannot start \(path): \(reason)"
        case .notStoppedAtExec(let path): return "\(path) did not stop at exec (is ptrace allowed?)"
        case .ptrace(let message): return message
        case .noCalibrationTarget(let message): return "cannot measure the tracer's bias: \(message)"
        }
    }
}
