import Glibc
import PremainModel
import PremainSystem

/// The state of one launch while its descriptors are pumped: stamps loader lines, the first
/// output byte and the exit, forwards output, and builds the `LaunchSample`.
struct LaunchSession {
    let request: LaunchRequest
    let birthNs: UInt64
    let pid: Int32
    private var parser: LdDebugParser
    private var partialLine: [UInt8] = []
    private var firstOutputNs: UInt64?
    private var firstOutputStream: LaunchSample.Stream?
    private var exitNs: UInt64?
    private var stderrHead: [UInt8] = []
    /// When the loader's channel reached end of file while the target was still running (not
    /// exiting): the program closed (or replaced) the descriptor ld.so writes to.
    private var channelClosedMs: Double?
    /// The channel closed before any `transferring control` line arrived.
    private var closedBeforeMain = false
    var readyNs: UInt64?
    private var readyLines = OutputLines()
    /// `--timeout` after birth (CLOCK_MONOTONIC); `nil` without a timeout.
    let deadlineNs: UInt64?

    init(request: LaunchRequest, pid: Int32, birthNs: UInt64) {
        self.request = request
        self.pid = pid
        self.birthNs = birthNs
        parser = LdDebugParser(pid: pid, program: request.arguments.first)
        deadlineNs = request.timeoutSeconds.map { birthNs + UInt64(max(0, $0) * 1e9) }
    }

    var stderrHeadText: String { String(decoding: stderrHead, as: UTF8.self) }

    /// How `pump` ended.
    enum Ending: Equatable {
        case exited
        case timedOut
        case stopped(StopCondition)
    }

    /// Reads until the process exits (its pidfd is readable), the stop condition is met or the
    /// timeout passes, then drains what is already buffered. Descriptors stay open.
    mutating func pump(fifo: Int32, capture: inout OutputCapture, pidFD: Int32) -> Ending {
        // Slots: loader FIFO, stdout pipe, stderr pipe, pidfd, null-device watch.
        var fds = [
            pollfd(fd: fifo, events: Int16(POLLIN), revents: 0),
            pollfd(fd: capture.stdoutRead, events: Int16(POLLIN), revents: 0),
            pollfd(fd: capture.stderrRead, events: Int16(POLLIN), revents: 0),
            pollfd(fd: pidFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: capture.watchFD, events: Int16(POLLIN), revents: 0),
        ]
        let deadline = deadlineNs
        var buffer = [UInt8](repeating: 0, count: 65536)
        var ending = Ending.exited
        // The loop always sleeps in poll until a descriptor is ready: the measurer wakes (at
        // SCHED_FIFO when permitted, so at once) when a loader line arrives. It never polls
        // without sleeping: a measurer that holds its own CPU leaves every other runnable task
        // of the machine to the target's CPU, which under a load that comes and goes moved
        // time to main by whole scheduler quanta (issue 34, defect 0; docs/measurement.md).
        loop: while true {
            var waitMs: Int32 = -1
            if let deadline {
                let now = MonotonicClock.nowNs()
                if now >= deadline {
                    ending = .timedOut
                    break
                }
                waitMs = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            }
            let ready = poll(&fds, nfds_t(fds.count), waitMs)
            let now = MonotonicClock.nowNs()
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0 { continue }  // re-checks the deadline
            if fds[4].revents != 0 {
                noteOutput(stream: .stdout, at: now)
                capture.stopWatching()
                fds[4].fd = -1
            }
            for index in 0..<3 where fds[index].fd >= 0 && fds[index].revents != 0 {
                if !drainOnce(&fds[index], index: index, at: now, buffer: &buffer) {
                    fds[index].fd = -1  // end of file: poll ignores negative descriptors
                    if index == 0, channelClosedMs == nil, TargetLiveness.isRunning(pid: pid, pidFD: pidFD) {
                        channelClosedMs = ms(now)
                        closedBeforeMain = parser.result?.mainMs == nil
                    }
                }
            }
            if let stop = request.stop, reached(stop) {
                ending = .stopped(stop)
                break loop
            }
            if fds[3].revents != 0 {
                exitNs = now
                break
            }
        }
        // Bytes written before the exit (or the kill) are already in the pipes.
        let now = MonotonicClock.nowNs()
        for index in 0..<3 where fds[index].fd >= 0 {
            while drainOnce(&fds[index], index: index, at: now, buffer: &buffer, onlyIfReady: true) {}
        }
        if fds[4].fd >= 0, firstOutputNs == nil {
            var event = [UInt8](repeating: 0, count: 256)
            if event.withUnsafeMutableBytes({ read(fds[4].fd, $0.baseAddress, $0.count) }) > 0 {
                noteOutput(stream: .stdout, at: now)
            }
        }
        if !partialLine.isEmpty {
            parser.consume(lines: [partialLine[...]], atMs: ms(now))
            partialLine.removeAll()
        }
        return ending
    }

    private func reached(_ stop: StopCondition) -> Bool {
        switch stop {
        case .firstOutput: return firstOutputNs != nil
        case .main: return parser.result?.mainMs != nil
        case .ready: return readyNs != nil
        case .symbol: return false  // the tracer ends the run there; the pidfd then turns readable
        }
    }

    /// One read; returns false at end of file, on error, or (with `onlyIfReady`) when empty.
    private mutating func drainOnce(
        _ entry: inout pollfd, index: Int, at now: UInt64,
        buffer: inout [UInt8], onlyIfReady: Bool = false
    ) -> Bool {
        let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
        if count < 0 { return !onlyIfReady && (errno == EAGAIN || errno == EINTR) }
        if count == 0 { return false }
        let bytes = buffer[0..<count]
        switch index {
        case 0: consumeLoader(bytes, at: now)
        case 1: consumeOutput(bytes, stream: .stdout, at: now)
        default: consumeOutput(bytes, stream: .stderr, at: now)
        }
        return true
    }

    private mutating func consumeLoader(_ bytes: ArraySlice<UInt8>, at now: UInt64) {
        partialLine.append(contentsOf: bytes)
        guard let lastNewline = partialLine.lastIndex(of: UInt8(ascii: "\n")) else { return }
        let complete = partialLine[..<lastNewline].split(
            separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        parser.consume(lines: complete, atMs: ms(now))
        partialLine.removeSubrange(...lastNewline)
    }

    private mutating func noteOutput(stream: LaunchSample.Stream, at now: UInt64) {
        if firstOutputNs == nil {
            firstOutputNs = now
            firstOutputStream = stream
        }
    }

    private mutating func consumeOutput(_ bytes: ArraySlice<UInt8>, stream: LaunchSample.Stream, at now: UInt64) {
        noteOutput(stream: stream, at: now)
        if stream == .stderr && stderrHead.count < ProcessLauncher.stderrHeadLimit {
            stderrHead.append(contentsOf: bytes.prefix(ProcessLauncher.stderrHeadLimit - stderrHead.count))
        }
        if case .ready(let pattern) = request.stop, readyNs == nil {
            // The matcher gives up at the deadline, so that the loop above sees the timeout.
            if readyLines.consume(bytes, stream: stream, pattern: pattern, deadlineNs: deadlineNs) { readyNs = now }
        }
        if case .forward(let consumer) = request.output { consumer(stream, Array(bytes)) }
    }

    private func ms(_ ns: UInt64) -> Double {
        MonotonicClock.milliseconds(from: birthNs, to: ns)
    }

    /// Why the loader's lines of this launch cannot be trusted: the program wrote a line only it
    /// can have written, or closed the channel before main while running. `nil` when neither. A
    /// close after main is noted on the sample (`loaderChannelClosedMs`), not refused: OpenSSH
    /// closes every descriptor at the start of main, which looks the same as a line forged in
    /// the program's constructor followed by a close.
    /// `exited`: how the run ended.
    func untrustedChannel(exited: LaunchOutcome.Kind) -> String? {
        if let forgery = parser.forgery { return forgery }
        if channelClosedMs != nil, closedBeforeMain { return "the channel closed before main" }
        // A program that exits through `exit` makes the loader print its `calling fini` lines,
        // one that returns from main `transferring control` first: a run that exited with a
        // status after loader lines began, with neither, had its channel closed before main
        // (an exit right after the close can beat the end-of-file check above).
        if exited == .success || exited == .exitNonZero, let timeline = parser.result, timeline.mainMs == nil,
            !parser.sawFini
        {
            return "the channel went silent before main, and no 'calling fini' line followed the exit"
        }
        return nil
    }

    /// The sample; a launch whose loader channel cannot be trusted (`untrustedChannel`) is an
    /// `unmeasurable` run without loader figures, whatever its exit, since a number read from
    /// lines the program may have written would be the program's, not the loader's.
    func sample(outcome: LaunchOutcome) -> LaunchSample {
        var outcome = outcome
        var loader = parser.result
        if request.instrumented, let why = untrustedChannel(exited: outcome.kind), outcome.kind != .execFailed {
            outcome.kind = .unmeasurable
            outcome.message = "\(LaunchOutcome.unmeasurableMessage) (\(why); \(outcome.message))"
            loader = nil
        }
        var sample = LaunchSample(
            birthNs: birthNs, processGroup: pid, instrumented: request.instrumented,
            loader: loader, firstOutputMs: firstOutputNs.map(ms),
            firstOutputStream: firstOutputStream, exitMs: exitNs.map(ms),
            readyMs: readyNs.map(ms), outcome: outcome, stderrHead: stderrHeadText)
        sample.laterImages = loader == nil ? nil : parser.laterImages
        if loader != nil, !closedBeforeMain { sample.loaderChannelClosedMs = channelClosedMs }
        return sample
    }
}

/// Whether a target still runs, asked when its loader channel reached end of file.
enum TargetLiveness {
    /// PF_EXITING in `/proc/PID/stat`'s flags: set when the task begins to exit, before its
    /// descriptors are closed.
    static let PF_EXITING: UInt64 = 0x4

    /// False once its pidfd is readable (it exited), it is a zombie, or it is exiting (an exit
    /// closes every descriptor, the loader's channel among them); true otherwise. False when
    /// `/proc` cannot say (an unreadable process is not blamed).
    static func isRunning(pid: Int32, pidFD: Int32) -> Bool {
        var entry = pollfd(fd: pidFD, events: Int16(POLLIN), revents: 0)
        if poll(&entry, 1, 0) > 0 { return false }
        guard let bytes = LocalFiles.read("/proc/\(pid)/stat", limit: 4096),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return false }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " ")).map {
            String(decoding: $0, as: UTF8.self)
        }
        // After the command: state (field 3), ppid, pgrp, session, tty_nr, tpgid, flags (field 9).
        guard fields.count > 6, let flags = UInt64(fields[6]) else { return false }
        if ["Z", "X", "x"].contains(fields[0]) { return false }
        return flags & PF_EXITING == 0
    }
}
