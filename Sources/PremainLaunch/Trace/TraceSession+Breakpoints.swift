import CTrace
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

#if arch(x86_64)  // the ptrace engine knows x86-64 only (see `Tracer.isSupported`)
    /// Breakpoint stops: calls entered and returned, markers, stepping over original instructions.
    extension TraceSession {
        func handleTrap(_ pid: pid_t) throws(PtraceError) {
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
            var completed: [(frame: Frame, end: UInt64, depth: Int)] = []
            if site.returnRefs > 0,
                let index = frames.lastIndex(where: { $0.returnAddress == address && $0.entrySP &+ 8 == regs.rsp })
            {
                completed.append((frames[index], wake, index))
                for frame in frames[(index + 1)...] { abandon(frame, stopped: pid) }
                frames.removeSubrange(index...)
                sites[address]?.returnRefs -= 1
            }
            if !site.exitOf.isEmpty,
                let index = frames.lastIndex(where: {
                    $0.returnAddress == nil && probes[$0.probe].exits.contains(address)
                })
            {
                completed.append((frames[index], wake, index))
                for frame in frames[(index + 1)...] { abandon(frame, stopped: pid) }
                frames.removeSubrange(index...)
            }
            let openBefore = frames.count
            if windowOpen { try enterProbes(of: site, at: address, pid: pid, regs: regs, frames: &frames) }
            for marker in site.markers { handleMarker(marker, pid: pid, regs: regs) }
            if !windowOpen, options.until != .exit {
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
            let resume = MonotonicClock.nowNs()
            for (frame, end, depth) in completed {
                let call = record(frame, endNs: end, returnHandlingNs: resume - wake, thread: pid, depth: depth)
                if depth > 0, depth - 1 < openBefore { frames[depth - 1].children.add(call) }
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

        /// A call of each armed probe at `address` begins: a frame each, its return address
        /// given a breakpoint (an inlined probe ends at its exits instead); a probe that has
        /// reached `--max-calls` is disarmed.
        private func enterProbes(
            of site: Site, at address: UInt64, pid: pid_t, regs: user_regs_struct, frames: inout [Frame]
        ) throws(PtraceError) {
            for index in site.probes where probes[index].armed {
                probes[index].hits += 1
                let recursive = frames.contains { $0.probe == index }
                if probes[index].probe.isInlined {
                    frames.append(
                        Frame(
                            probe: index, returnAddress: nil, entrySP: regs.rsp, startNs: 0,
                            entryHandlingNs: 0, recursive: recursive))
                } else {
                    let returnAddress = try Ptrace.peek(pid, regs.rsp)
                    frames.append(
                        Frame(
                            probe: index, returnAddress: returnAddress, entrySP: regs.rsp, startNs: 0,
                            entryHandlingNs: 0, recursive: recursive))
                    sites[returnAddress, default: Site()].returnRefs += 1
                    if !sync(returnAddress, pid) {
                        sites[returnAddress] = nil
                        frames.removeLast()
                        probes[index].unfinished += 1
                    }
                }
                if probes[index].hits >= options.maxCalls {
                    probes[index].armed = false
                    sites[address]?.probes.removeAll { $0 == index }
                }
            }
        }

        /// The effect of the original instruction at `address` when premain can execute it itself.
        func emulatedEntry(at address: UInt64, pid: pid_t, regs: user_regs_struct) -> EntryInstruction.Effect? {
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
        func stopOtherThreads(except pid: pid_t) -> [(pid: pid_t, sinceNs: UInt64)] {
            let waiting = Set(deferred.map(\.pid))
            let running = threads.keys.filter {
                $0 != pid && !vforkParents.contains($0) && !expectedThreads.contains($0) && !stopsSent.contains($0)
                    && !waiting.contains($0)
            }
            guard !running.isEmpty else { return [] }
            var signalled: [pid_t] = []
            var wasRunning = Set<pid_t>()
            for thread in running {
                if Self.isRunning(thread, group: vforkChildren.contains(thread) ? thread : leader) {
                    wasRunning.insert(thread)
                }
                let sent =
                    vforkChildren.contains(thread) ? kill(thread, SIGSTOP) : ctrace_tgkill(leader, thread, SIGSTOP)
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
                    stopped.append((thread, wasRunning.contains(thread) ? MonotonicClock.nowNs() : 0))
                default:
                    // A breakpoint, an event or its end: handled later; our SIGSTOP is swallowed then.
                    deferred.append((thread, status, MonotonicClock.nowNs()))
                }
            }
            return stopped
        }

        /// `true` when the thread is running or runnable (state R in /proc/PID/task/TID/stat).
        static func isRunning(_ thread: pid_t, group: pid_t) -> Bool {
            guard let stat = LocalFiles.readText("/proc/\(group)/task/\(thread)/stat"),
                let close = stat.lastIndex(of: ")")
            else { return true }
            return stat[stat.index(after: close)...].split(separator: " ").first == "R"
        }

        /// Resumes threads stopped by `stopOtherThreads`. The time each was held is premain's, not
        /// the thread's: it is added to the thread's open calls like any nested stop.
        func resumeThreads(_ stopped: [(pid: pid_t, sinceNs: UInt64)]) {
            let now = MonotonicClock.nowNs()
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
        func stepOver(_ pid: pid_t) -> Int32? {
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

        func handleMarker(_ marker: TraceMarker, pid: pid_t, regs: user_regs_struct) {
            switch marker {
            case .loaderHook:
                refreshObjects(pid)
            case .main:
                reach("main")
                if options.until == .main { windowOpen = false }
            case .libcStartMain:
                guard !mainFound, regs.rdi != 0 else { return }
                mainFound = true
                sites[regs.rdi, default: Site()].markers.insert(.main)
                sync(regs.rdi, pid)
            case .write:
                guard regs.rdi == 1 || regs.rdi == 2 else { return }
                reach("firstOutput")
                if options.until == .firstOutput { windowOpen = false }
                for (address, site) in sites where site.markers.contains(.write) {
                    sites[address]?.markers.remove(.write)
                    if address != regs.rip &- 1 { sync(address, pid) }
                }
            case .until:
                if case .symbol(let name) = options.until {
                    reach(name)
                    windowOpen = false
                }
            }
        }

        func reach(_ milestone: String) {
            if milestones[milestone] == nil { milestones[milestone] = millisecondsSinceBirth() }
        }

        @discardableResult
        func record(_ frame: Frame, endNs: UInt64, returnHandlingNs: UInt64, thread: pid_t, depth: Int) -> TracedCall {
            let call = TracedCall(
                rawNs: endNs &- frame.startNs, nestedStops: frame.nestedStops,
                nestedHandlingNs: frame.nestedHandlingNs,
                handlingNs: frame.entryHandlingNs + returnHandlingNs, recursive: frame.recursive,
                children: frame.children, startSinceBirthNs: frame.startNs &- birthNs,
                thread: thread, depth: depth)
            probes[frame.probe].calls.append(call)
            return call
        }

        /// Gives up on a call that will not return (its thread ended, or an outer frame returned
        /// first). Its return breakpoint is removed now when a thread is stopped, else at its next hit.
        func abandon(_ frame: Frame, stopped pid: pid_t?) {
            probes[frame.probe].unfinished += 1
            if let returnAddress = frame.returnAddress, sites[returnAddress] != nil {
                sites[returnAddress]?.returnRefs -= 1
                if let pid { sync(returnAddress, pid) }
            }
        }
    }
#endif
