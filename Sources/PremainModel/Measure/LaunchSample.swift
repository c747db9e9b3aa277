/// Everything one launch produced. Times are milliseconds since process birth: CLOCK_MONOTONIC
/// read by the (vforked) child immediately before it calls `execve`, its set-up done.
public struct LaunchSample: Codable, Equatable, Sendable {
    /// Which output stream a byte came from.
    public enum Stream: String, Codable, Sendable {
        case stdout, stderr
    }

    /// Process birth as an absolute CLOCK_MONOTONIC time in nanoseconds (to line up with
    /// self-timing logs written by the target).
    public var birthNs: UInt64
    /// The target's pid, which is also its process group id (0 for fakes).
    public var processGroup: Int32
    /// True when the launch ran with `LD_DEBUG`.
    public var instrumented: Bool
    /// The loader's lines; `nil` when uninstrumented or when the loader printed nothing
    /// (static or non-glibc binaries).
    public var loader: LoaderTimeline?
    /// When the first byte of stdout or stderr reached the measuring process. `nil` when the
    /// program wrote nothing.
    public var firstOutputMs: Double?
    public var firstOutputStream: Stream?
    /// When the process was seen to end (its pidfd turned readable). `nil` after a timeout or
    /// a stop.
    public var exitMs: Double?
    /// When a line of output first matched `--ready`, or the `--until` function was first
    /// called; `nil` without either or when it never happened.
    public var readyMs: Double?
    /// Images the process exec'd into after the first (`sh -c 'exec prog'`, a driver that
    /// execs its tool), in order, each its own loader timeline; `nil` when it never exec'd.
    public var laterImages: [LoaderTimeline]?
    /// Child processes that inherited LD_DEBUG and wrote their own loader lines, which are not
    /// part of this launch's figures; `nil` when none (or uninstrumented).
    public var childProcessesWithLoaderOutput: Int?
    /// True when stdout went through a pipe (`--show-output`, `--ready`, or no private null
    /// device could be made), which costs a program that writes a lot more than /dev/null.
    public var outputThroughPipe: Bool?
    /// When the program closed the loader's channel after `transferring control` (OpenSSH calls
    /// `closefrom` at the start of main), in ms; `nil` when it did not. Such a run is measured,
    /// with a warning: a line forged in the program's own constructor and then a close would look
    /// the same (issue 34, defect 5).
    public var loaderChannelClosedMs: Double?
    public var outcome: LaunchOutcome
    /// The target's own user + system CPU time (from wait4), in ms; `nil` when unknown. Less
    /// sensitive to other load than wall time, so it shows the observer effect on busy machines.
    public var cpuMs: Double?
    /// The target's own resource counts from wait4's rusage; `nil` when unknown.
    public var usage: ResourceUsage?
    /// The first bytes of stderr (at most 2 KiB), kept to explain failures.
    public var stderrHead: String

    public init(
        birthNs: UInt64, processGroup: Int32 = 0, instrumented: Bool, loader: LoaderTimeline?, firstOutputMs: Double?,
        firstOutputStream: Stream?, exitMs: Double?, readyMs: Double? = nil, outcome: LaunchOutcome,
        stderrHead: String
    ) {
        self.birthNs = birthNs
        self.processGroup = processGroup
        self.instrumented = instrumented
        self.loader = loader
        self.firstOutputMs = firstOutputMs
        self.firstOutputStream = firstOutputStream
        self.exitMs = exitMs
        self.readyMs = readyMs
        self.outcome = outcome
        self.stderrHead = stderrHead
    }
}

/// How one launch ended.
public struct LaunchOutcome: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
        /// Exited with status 0.
        case success
        /// Exited with a non-zero status.
        case exitNonZero = "exit_non_zero"
        /// Killed by a signal it did not handle.
        case signaled
        /// Did not exit within `--timeout`; premain killed its process group.
        case timedOut = "timed_out"
        /// The loader could not find or load a library (`error while loading shared libraries`).
        case missingLibrary = "missing_library"
        /// `execve` itself failed (no such file, not executable, bad format).
        case execFailed = "exec_failed"
        /// Reached the milestone it was to stop at (`--until`, `--ready`); premain ended it.
        /// A good run.
        case stopped
        /// Exited with status 0 before the milestone it was to stop at: a failed run.
        case notReached = "not_reached"
        /// The program wrote to or closed the loader's debug channel, so its loader lines (and
        /// every milestone read from them) cannot be trusted: a failed run without loader
        /// figures (issue 34, defect 5).
        case unmeasurable
    }

    /// The start of an `unmeasurable` run's message.
    public static let unmeasurableMessage = "unmeasurable: the program wrote to or closed the loader's channel"

    public var kind: Kind
    /// The exit status, when it exited.
    public var exitStatus: Int32?
    /// The signal number, when a signal killed it.
    public var signal: Int32?
    /// A one-line explanation: "killed by signal 11 (Segmentation fault)",
    /// "exited with status 3", the loader's error.
    public var message: String
    /// Processes of its group still alive after it ended, which premain killed. 0 when none.
    public var lingeringProcessesKilled: Int
    /// True when some process of its group was still there after SIGKILL and two seconds of
    /// waiting (stuck in the kernel, or re-parented where premain cannot reap it).
    public var processesLeftBehind: Bool = false

    public init(
        kind: Kind, exitStatus: Int32? = nil, signal: Int32? = nil, message: String,
        lingeringProcessesKilled: Int = 0
    ) {
        self.kind = kind
        self.exitStatus = exitStatus
        self.signal = signal
        self.message = message
        self.lingeringProcessesKilled = lingeringProcessesKilled
    }

    /// True for `.success` and `.stopped` (a run ended as asked).
    public var succeeded: Bool { kind == .success || kind == .stopped }
}

/// What glibc's loader reported about one launch (`LD_DEBUG=files,reloc,statistics`, see
/// `LoaderDebugChannels`), each time in milliseconds since process birth, stamped when the line
/// reached the measuring process.
public struct LoaderTimeline: Codable, Equatable, Sendable {
    /// One object the loader mapped (`file=NAME [0];  generating link map`).
    public struct MappedObject: Codable, Equatable, Sendable {
        /// The name as the loader printed it: the DT_NEEDED string or a path.
        public var name: String
        /// Who needed it (a path, or the executable as started), or `nil` when not printed.
        public var neededBy: String?
        /// When the mapping was done (the `dynamic:` line after `generating link map`).
        /// `nil` when the launch ended before that line.
        public var mappedMs: Double?
        /// When its loading began: the `file=NAME;  needed by WHO` line, printed before the
        /// loader searches for the file (else the `generating link map` line). Loading is search,
        /// open, reading the headers and mapping the segments, up to `mappedMs`. `nil` in
        /// timelines recorded before this was kept.
        public var startMs: Double?

        public init(name: String, neededBy: String?, mappedMs: Double?, startMs: Double? = nil) {
            self.name = name
            self.neededBy = neededBy
            self.mappedMs = mappedMs
            self.startMs = startMs
        }

        /// Search, open and mapping: from `startMs` to `mappedMs`; `nil` when either is missing.
        public var mappingMs: Double? {
            guard let startMs, let mappedMs else { return nil }
            return max(0, mappedMs - startMs)
        }
    }

    /// One object's relocation pass (`relocation processing: PATH`, with ` (lazy)` when its
    /// PLT is bound lazily). glibc relocates the objects one by one, in reverse load order, the
    /// executable last and the loader's own final pass after it.
    public struct RelocationPass: Codable, Equatable, Sendable {
        /// The object's path as the loader printed it (the executable: argv[0]).
        public var path: String
        public var startMs: Double
        /// Until the next object's pass, or the end of relocation (the statistics block or the
        /// first initializer line). `nil` when the launch ended inside it.
        public var durationMs: Double?
        /// True when its PLT entries are bound on first call, after main (`(lazy)`); false for
        /// bind-now (`-z now`, `LD_BIND_NOW`), whose binding is in this pass.
        public var lazy: Bool

        public init(path: String, startMs: Double, durationMs: Double?, lazy: Bool) {
            self.path = path
            self.startMs = startMs
            self.durationMs = durationMs
            self.lazy = lazy
        }
    }

    /// One object's initializers (`calling init: PATH`), or the executable's own
    /// (`initialize program: ARGV0`).
    public struct InitializerCall: Codable, Equatable, Sendable {
        public var path: String
        /// Start: the loader's line just before it called the first initializer.
        public var startMs: Double
        /// Until the next `calling init`, `initialize program` or `transferring control` line.
        /// `nil` when the launch ended before the next line (for example a crash in it).
        public var durationMs: Double?
        /// True for the executable's own initializers.
        public var isProgram: Bool

        public init(path: String, startMs: Double, durationMs: Double?, isProgram: Bool) {
            self.path = path
            self.startMs = startMs
            self.durationMs = durationMs
            self.isProgram = isProgram
        }
    }

    /// One `dlopen` after main: the object asked for, what it brought in, its initializers.
    public struct LateLoad: Codable, Equatable, Sendable {
        /// The name as the loader printed it (`file=NAME [0];  dynamically loaded by WHO`).
        public var name: String
        /// The object that called `dlopen` (its path, or the executable as started).
        public var requester: String?
        /// The `dynamically loaded by` line: the load begins.
        public var startMs: Double
        /// Every object mapped by this load, the requested one first.
        public var objects: [MappedObject] = []
        /// Initializers run by this load, in call order. Each ends at the next one's line or at
        /// the `opening file=` line that ends the load.
        public var initializers: [InitializerCall] = []
        /// The `opening file=NAME; direct_opencount=N` line, printed once the load and its
        /// initializers are done. `nil` when the run ended (or failed) inside the load.
        public var endMs: Double?

        public init(name: String, requester: String?, startMs: Double) {
            self.name = name
            self.requester = requester
            self.startMs = startMs
        }
    }

    /// The program as the loader named it (`initialize program: NAME`, `transferring control:
    /// NAME`): argv[0] or the path it was exec'd as. `nil` until one of those lines.
    public var program: String?
    /// The first line from the loader: it has relocated itself and opened its debug output.
    public var loaderStartMs: Double
    public var objects: [MappedObject] = []
    /// The first initializer call line: mapping and relocation are finished. `nil` when no
    /// initializer was ever announced (the loader failed first).
    public var loaderDoneMs: Double?
    /// In call order, the executable's own last.
    public var initializers: [InitializerCall] = []
    /// `transferring control: …`, printed just before main is called. `nil` when never reached.
    public var mainMs: Double?
    /// Counts printed when relocation was done (`runtime linker statistics`).
    public var startupCounts: LoaderCounts?
    /// Counts printed at exit (`final number of …`), which include lazy binding during main.
    public var finalCounts: LoaderCounts?
    /// Loads after main (`dlopen`), in order; never part of the time before main.
    public var loadedAfterMain: [LateLoad]?
    /// Lines without the process's pid prefix: the rest of a path that holds a newline (which
    /// could otherwise forge loader lines). Never parsed as loader lines; `nil` when none.
    public var continuedLines: Int?
    /// Each object's relocation pass before main, in the loader's order; `nil` when the
    /// loader printed none (recorded without the `reloc` channel).
    public var relocations: [RelocationPass]?
    /// Loader lines of this image, and how many of them carried the same stamp as the line
    /// before (they reached the measurer in one read): the stamps' resolution. `nil` in
    /// timelines recorded before these were kept.
    public var lines: Int?
    public var sameStampLines: Int?

    public init(loaderStartMs: Double) {
        self.loaderStartMs = loaderStartMs
    }
}

/// Counts from wait4's rusage for one process (its own, not its children's): almost immune to
/// other load, so they back or refute a change of wall time.
public struct ResourceUsage: Codable, Equatable, Sendable {
    /// Page faults served without I/O (`ru_minflt`).
    public var minorFaults: Int
    /// Page faults that needed I/O (`ru_majflt`).
    public var majorFaults: Int
    /// Times it gave up the CPU to wait: I/O, sleep, a lock (`ru_nvcsw`).
    public var voluntarySwitches: Int
    /// Times the scheduler took the CPU away (`ru_nivcsw`): other load.
    public var involuntarySwitches: Int

    public init(minorFaults: Int, majorFaults: Int, voluntarySwitches: Int, involuntarySwitches: Int) {
        self.minorFaults = minorFaults
        self.majorFaults = majorFaults
        self.voluntarySwitches = voluntarySwitches
        self.involuntarySwitches = involuntarySwitches
    }
}
