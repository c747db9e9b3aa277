import Glibc
import PremainModel
import PremainSystem

/// Counts the instructions of a launch under valgrind's callgrind: exact counts that do not
/// drift with the load of a shared CI runner.
///
/// One count is one run of `valgrind --tool=callgrind` through a `Launcher` (its own process
/// group, stdin from /dev/null, output dropped, the timeout, the group killed and reaped at
/// the end), in a private folder under /tmp that is deleted afterwards. callgrind dumps before
/// `main`, before every `write`/`writev` call and at exit; `--trace-syscalls` tells which of
/// those writes went to fd 1 or 2. For counts that repeat exactly, the run gets
/// `SWIFT_DETERMINISTIC_HASHING=1`, ignores valgrind's rc files and `VALGRIND_OPTS`
/// (`--command-line-only=yes`), has no vgdb pipe, and runs under `setarch -R` so that the
/// kernel's address randomization (the stack and vDSO addresses a program reads from
/// /proc/self/maps) does not change what the program does.
///
/// A program that replaces itself (`sh -c 'exec ./app'`, `env VAR=1 ./app`) is followed
/// (`--trace-children=yes`) and its last image is counted, from that image's `execve`: each
/// image writes the same files (`callgrind.out.PID…`, `valgrind.log.PID`), so the last one's
/// exit dump and the numbered dumps before its part number are that image's alone, and a note
/// says that the counts are of a later image.
public struct InstructionCounter: Sendable {
    /// The valgrind executable; `nil` to look it up in the `PATH` of the environment given to
    /// `count`.
    public var valgrindPath: String?
    public let launcher: any Launcher

    public init(valgrindPath: String? = nil, launcher: any Launcher = ProcessLauncher()) {
        self.valgrindPath = valgrindPath
        self.launcher = launcher
    }

    /// Counts one run of `command` (`command[0]` looked up in the `PATH` of `environment`
    /// unless it holds a slash) with `environment` plus `SWIFT_DETERMINISTIC_HASHING=1`. The run
    /// may exit with any status (it is in `exitStatus`); throws when valgrind or the command is
    /// missing, when the run is killed (signal, timeout) or its loader fails, or when
    /// callgrind's output cannot be read.
    public func count(command: [String], environment: [String], timeoutSeconds: Double?) throws(InstructionCountError)
        -> InstructionCounts
    {
        try count(command: command, environment: environment, timeoutSeconds: timeoutSeconds, runs: 1)
    }

    /// Counts `runs` runs (at least 1) and returns the first run's counts with `runs` and
    /// `differingRuns` set: how many later runs counted a different `beforeMain`,
    /// `toFirstOutput` or `total`.
    public func count(
        command: [String], environment: [String], timeoutSeconds: Double?,
        runs: Int
    ) throws(InstructionCountError) -> InstructionCounts {
        guard let name = command.first, !name.isEmpty else { throw .noCommand }
        let valgrind = try locateValgrind(environment: environment)
        guard let executable = CommandResolver.executable(for: name, environment: environment) else {
            throw .commandNotFound(name)
        }
        var counts = try countOnce(
            valgrind: valgrind, executable: executable, command: command,
            environment: environment, timeoutSeconds: timeoutSeconds)
        counts.runs = max(1, runs)
        for _ in 1..<max(1, runs) {
            let again = try countOnce(
                valgrind: valgrind, executable: executable, command: command,
                environment: environment, timeoutSeconds: timeoutSeconds)
            if again.beforeMain != counts.beforeMain || again.toFirstOutput != counts.toFirstOutput
                || again.total != counts.total
            {
                counts.differingRuns += 1
            }
        }
        return counts
    }

    /// The valgrind that `count` will run: `valgrindPath`, else `valgrind` in the `PATH` of
    /// `environment`. Throws `.valgrindNotFound` when there is none.
    public func locateValgrind(environment: [String]) throws(InstructionCountError) -> String {
        if let valgrindPath {
            guard LocalFiles.kind(valgrindPath) == .file, LocalFiles.isAccessible(valgrindPath, X_OK) else {
                throw .valgrindNotFound(valgrindPath)
            }
            return valgrindPath
        }
        guard let found = CommandResolver.executable(for: "valgrind", environment: environment) else {
            throw .valgrindNotFound(nil)
        }
        return found
    }

    /// valgrind's options for one run whose files go to `folder`. Each process logs to its own
    /// `valgrind.log.PID` (an image that an exec replaced is truncated away with its file).
    static func valgrindOptions(folder: String) -> [String] {
        [
            "--tool=callgrind", "--command-line-only=yes", "-q", "--vgdb=no", "--trace-children=yes",
            "--log-file=\(folder)/valgrind.log.%p", "--trace-syscalls=yes", "--show-below-main=yes",
            "--demangle=no", "--collect-systime=no", "--callgrind-out-file=\(folder)/callgrind.out.%p",
            "--dump-before=main", "--dump-before=write", "--dump-before=writev", "--dump-before=__write_nocancel",
        ]
    }

    func countOnce(
        valgrind: String, executable: String, command: [String], environment: [String],
        timeoutSeconds: Double?
    ) throws(InstructionCountError) -> InstructionCounts {
        let folder: String
        switch LocalFiles.makeTemporaryFolder("icount") {
        case .success(let made): folder = made
        case .failure(let error): throw .runFailed(error.message)
        }
        defer { LocalFiles.removeFolderAndFiles(folder) }

        var notes: [String] = []
        var arguments = [valgrind] + Self.valgrindOptions(folder: folder) + [executable] + command.dropFirst()
        var program = valgrind
        if let setarch = CommandResolver.executable(for: "setarch", environment: environment),
            let machine = MachineProbe.machine()
        {
            program = setarch
            arguments = [setarch, machine, "-R"] + arguments
        } else {
            notes.append(
                "setarch not found: address randomization stayed on, so counts may differ by a few instructions between runs"
            )
        }
        var runEnvironment = environment.filter { !$0.hasPrefix("SWIFT_DETERMINISTIC_HASHING=") }
        runEnvironment.append("SWIFT_DETERMINISTIC_HASHING=1")
        let request = LaunchRequest(
            executablePath: program, arguments: arguments, environment: runEnvironment,
            instrumented: false, timeoutSeconds: timeoutSeconds, output: .discard)
        let sample: LaunchSample
        do {
            sample = try launcher.launch(request)
        } catch {
            throw .runFailed("cannot launch valgrind: \(error.message)")
        }
        let pid = sample.processGroup
        let log = LocalFiles.read(folder + "/valgrind.log.\(pid)") ?? []
        switch sample.outcome.kind {
        case .success, .exitNonZero:
            break
        case .timedOut, .signaled, .missingLibrary, .execFailed, .stopped, .notReached, .unmeasurable:
            throw .runFailed(Self.explain(sample.outcome.message, log: log, stderr: sample.stderrHead))
        }
        let parts = try readParts(folder: folder, pid: pid, log: log, stderr: sample.stderrHead)
        var counts = InstructionCountBuilder.counts(
            parts: parts, writeDescriptors: ValgrindLog.writeDescriptors(in: log, pid: pid),
            exitStatus: sample.outcome.exitStatus ?? 0)
        let launched = ([executable] + command.dropFirst()).joined(separator: " ")
        if let command = parts.last?.command, case let counted = String(command.drop { $0 == " " }), counted != launched
        {
            notes.append(
                "the program replaced itself (exec): counted is its last image, '\(counted)', from its execve; the images before it are not counted"
            )
        }
        counts.notes = notes + counts.notes
        return counts
    }

    /// The dumps of process `pid`'s last image in the order made: `callgrind.out.PID.1`, `.2`,
    /// …, then the exit dump `callgrind.out.PID`, whose `part:` N says that `.1` to `.N-1` are
    /// its own; higher numbers are left from an earlier image that an exec replaced.
    func readParts(folder: String, pid: Int32, log: [UInt8], stderr: String) throws(InstructionCountError)
        -> [CallgrindProfile]
    {
        let base = "callgrind.out.\(pid)"
        guard case .success(let names) = LocalFiles.entries(of: folder), names.contains(base) else {
            throw .runFailed(Self.explain("valgrind wrote no profile", log: log, stderr: stderr))
        }
        func parse(_ file: String) throws(InstructionCountError) -> CallgrindProfile {
            guard let bytes = LocalFiles.read(folder + "/" + file) else {
                throw .unreadableOutput("cannot read callgrind's \(file)")
            }
            // Written when the image starts and filled at its exit: an image that exec'd
            // something valgrind did not follow, or that was killed, leaves it empty.
            if bytes.isEmpty {
                throw .runFailed(
                    Self.explain(
                        "callgrind wrote no counts for the program's last image (it exec'd a program valgrind cannot run, or was killed); count that program directly",
                        log: log, stderr: stderr))
            }
            do throws(CallgrindFormatError) {
                return try CallgrindParser.parse(bytes)
            } catch {
                throw .unreadableOutput("callgrind's \(file): \(error.description)")
            }
        }
        let last = try parse(base)
        var numbered: [(Int, String)] = []
        for name in names where name.hasPrefix(base + ".") {
            guard let number = Int(name.dropFirst(base.count + 1)) else { continue }
            if let part = last.part, number >= part { continue }
            numbered.append((number, name))
        }
        var parts: [CallgrindProfile] = []
        for (_, file) in numbered.sorted(by: { $0.0 < $1.0 }) { parts.append(try parse(file)) }
        return parts + [last]
    }

    /// `what`, then valgrind's own messages or, without them, the first line of stderr when
    /// `what` does not quote it already.
    static func explain(_ what: String, log: [UInt8], stderr: String) -> String {
        let messages = ValgrindLog.messages(in: log, limit: 3)
        if !messages.isEmpty { return what + ": " + messages.joined(separator: "; ") }
        if let line = stderr.split(separator: "\n").first, !what.contains(line) { return what + ": " + line }
        return what
    }
}

/// Why instructions could not be counted.
public enum InstructionCountError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command line is empty.
    case noCommand
    /// No valgrind: the path given (not an executable file), or `nil` when none is in PATH.
    case valgrindNotFound(String?)
    /// `command[0]` names no executable file (searched in PATH when it holds no slash).
    case commandNotFound(String)
    /// The run could not be made or did not end normally (signal, timeout, loader error,
    /// valgrind's own failure); the message says what happened.
    case runFailed(String)
    /// callgrind's output is missing or does not follow its format.
    case unreadableOutput(String)

    /// Lowercase, no trailing period: "valgrind not found; install the Debian package valgrind".
    public var description: String {
        switch self {
        case .noCommand: return "no command to count"
        case .valgrindNotFound(nil): return "valgrind not found; install the Debian package valgrind"
        case .valgrindNotFound(let path?): return "valgrind not found at \(path); install the Debian package valgrind"
        case .commandNotFound(let name): return "command not found: \(name)"
        case .runFailed(let message): return "the counted run failed: \(message)"
        case .unreadableOutput(let message): return "cannot read the instruction counts: \(message)"
        }
    }
}
