import CTrace
import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

#if arch(x86_64)  // the ptrace engine knows x86-64 only (see `Tracer.isSupported`)
    /// The event loop: what each stop of a thread, a new thread or a child process means.
    extension TraceSession {
        func loop() {
            while windowOpen || options.until == .exit {
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
                    if !windowOpen && options.until != .exit { return }
                case .other:
                    continue
                }
            }
        }

        /// Waits for the next event of the target's process group; falls back to polling known
        /// threads if the group has left its group (setsid).
        func waitForTracee() -> (pid_t, WaitStatus)? {
            if !deferred.isEmpty {
                let next = deferred.removeFirst()
                stopSeenNs = next.seenNs
                return (next.pid, next.status)
            }
            defer { stopSeenNs = MonotonicClock.nowNs() }
            if let event = waitForThread(-leader) { return event }
            while !threads.isEmpty {
                for pid in Array(threads.keys) + Array(followed) {
                    if let event = waitForThread(pid, noHang: true) { return event }
                }
                usleep(200)
            }
            return nil
        }

        func threadEnded(_ pid: pid_t, _ status: WaitStatus) {
            if let frames = threads.removeValue(forKey: pid) {
                for frame in frames { abandon(frame, stopped: nil) }
            }
            vforkChildren.remove(pid)
            expectedThreads.remove(pid)
            guard pid == leader else { return }
            milestones["exit"] = millisecondsSinceBirth()
            switch status {
            case .exited(let code): outcome = .exited(code: code)
            case .signaled(let signal): outcome = .killedBySignal(signal)
            default: break
            }
        }

        func handleStop(_ pid: pid_t, signal: Int32, event: Int32) throws(PtraceError) {
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

        func handleEvent(_ pid: pid_t, event: Int32) throws(PtraceError) {
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
                image += 1
                notes.append(
                    "the target called execve; tracing continued in the new image, whose rows say \"image \(image)\"")
                setUpImage(pid)
            default:
                break
            }
            try Ptrace.resume(pid)
        }

        /// A forked child holds a copy of the int3 bytes: put the original bytes back, then let it
        /// run, followed (not timed) until the run ends.
        func adoptForkChild(_ child: pid_t) {
            let failed = table.restoreCopy(in: child)
            if failed > 0 { notes.append("\(failed) breakpoints could not be removed from forked child \(child)") }
            followed.insert(child)
            try? Ptrace.resume(child)
        }

        /// A stop of a followed process: new processes and threads are followed too, signals are
        /// passed on, everything else resumes.
        func handleFollowed(_ pid: pid_t, signal: Int32, event: Int32) throws(PtraceError) {
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
    }
#endif
