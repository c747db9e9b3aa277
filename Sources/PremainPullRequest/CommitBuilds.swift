import PremainLaunch
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `premain pr --commits BASE HEAD --build CMD --artifact PATH`: each commit checked out into a
/// git worktree in a temporary folder, built there with CMD (`/bin/sh -c`, its output on
/// stderr), and PATH inside it taken as that side's artifact folder. With a cache folder, a
/// commit's artifact folder is copied to `CACHE/<full SHA>` after its build and taken from there
/// the next time instead of building again (CI caches that folder by the base commit).
///
/// Nothing is left behind, however premain ends: git and the build run as `ChildProcess`es
/// (each in its own process group, killed by the interrupt guard), and `cleanUp` is registered
/// with the watchdog as soon as the temporary folder exists, so that SIGINT, SIGTERM, SIGHUP,
/// SIGQUIT and SIGKILL of premain still remove the worktrees (git's bookkeeping too) and the folder.
public struct CommitBuilds: Sendable {
    public var buildCommand: String
    public var artifact: String
    public var cacheDirectory: String?
    /// A build that takes longer is ended (its process group killed) and the side fails.
    public var buildTimeoutSeconds: Double?

    public init(
        buildCommand: String, artifact: String, cacheDirectory: String? = nil, buildTimeoutSeconds: Double? = nil
    ) {
        self.buildCommand = buildCommand
        self.artifact = artifact
        self.cacheDirectory = cacheDirectory
        self.buildTimeoutSeconds = buildTimeoutSeconds
    }

    /// Removes the worktrees `$2/base` and `$2/head` of repository `$1` (locked ones too: an
    /// interrupted `git worktree add` leaves its lock), then the folder `$2` (again while a
    /// killed build's last writes land), then git's records of worktrees that are gone. One
    /// line: the watchdog takes it as one argument.
    static let cleanUpScript =
        #"cd / || exit 1; for tree in "$2/base" "$2/head"; do if [ -e "$tree" ]; then git -C "$1" worktree remove --force --force "$tree" >/dev/null 2>&1; fi; done; for attempt in 1 2 3 4 5 6 7 8 9 10; do rm -rf -- "$2" 2>/dev/null; [ -e "$2" ] || break; sleep 0.2; done; git -C "$1" worktree prune"#

    /// The command that removes what `prepare` made in `temporary` for `repository`.
    static func cleanUp(repository: String, temporary: String) -> [String] {
        ["/bin/sh", "-c", cleanUpScript, "premain-pr-cleanup", repository, temporary]
    }

    public struct Failure: Error {
        public var message: String
    }

    /// The artifact folders, the commits, and what to remove afterwards.
    public struct Prepared: Sendable {
        public var base: String
        public var head: String
        public var baseCommit: String
        public var headCommit: String
        public var repository: String
        public var temporary: String
        public var worktrees: [String]

        /// Removes the worktrees (git's bookkeeping too) and the temporary folder, then tells
        /// the watchdog that there is nothing left to remove.
        public func remove() {
            _ = ChildProcess.run(CommitBuilds.cleanUp(repository: repository, temporary: temporary))
            _ = LaunchGuard.cleanUpAtExit([])
        }
    }

    /// Builds both commits, base first. Throws with a one-line message naming the step that
    /// failed; whatever was made is removed then.
    public func prepare(base: String, head: String, log: (String) -> Void) throws(Failure) -> Prepared {
        let top = ChildProcess.run(["git", "rev-parse", "--show-toplevel"], capture: true)
        let repository = top.output.trimmingNewlines
        guard top.status == 0, !repository.isEmpty else {
            throw Failure(message: "--commits must run inside a git repository (git rev-parse --show-toplevel failed)")
        }
        let baseCommit = try resolve(base, in: repository)
        let headCommit = try resolve(head, in: repository)
        guard let temporary = Self.temporaryFolder() else {
            throw Failure(message: "cannot make a temporary folder: \(String(cString: strerror(errno)))")
        }
        var prepared = Prepared(
            base: "", head: "", baseCommit: baseCommit, headCommit: headCommit,
            repository: repository, temporary: temporary, worktrees: [])
        if !LaunchGuard.cleanUpAtExit(Self.cleanUp(repository: repository, temporary: temporary)) {
            log(
                "cannot have the watchdog remove \(temporary) if premain is killed (no watchdog, or a path with a newline)"
            )
        }
        do {
            prepared.base = try side("base", commit: baseCommit, into: &prepared, log: log)
            prepared.head =
                headCommit == baseCommit
                ? prepared.base : try side("head", commit: headCommit, into: &prepared, log: log)
        } catch {
            prepared.remove()
            throw error
        }
        return prepared
    }

    func resolve(_ revision: String, in repository: String) throws(Failure) -> String {
        let result = ChildProcess.run(
            ["git", "-C", repository, "rev-parse", "--verify", "--quiet", revision + "^{commit}"], capture: true)
        let sha = result.output.trimmingNewlines
        guard result.status == 0, !sha.isEmpty else {
            throw Failure(
                message: "'\(revision)' is not a commit of \(repository) (a shallow clone? fetch with fetch-depth: 0)")
        }
        return sha
    }

    /// One side's artifact folder: from the cache, or checked out and built.
    func side(_ name: String, commit: String, into prepared: inout Prepared, log: (String) -> Void) throws(Failure)
        -> String
    {
        if let cacheDirectory {
            let cached = cacheDirectory + "/" + commit
            if LocalFiles.kind(cached) == .folder {
                log("\(name) (\(commit.prefix(12))): artifacts from the cache \(cached)")
                return cached
            }
        }
        let tree = prepared.temporary + "/" + name
        log("\(name) (\(commit.prefix(12))): checking out into \(tree)")
        guard
            ChildProcess.run(["git", "-C", prepared.repository, "worktree", "add", "--detach", tree, commit]).status
                == 0
        else {
            throw Failure(message: "\(name): git worktree add of \(commit.prefix(12)) failed")
        }
        prepared.worktrees.append(tree)
        log("\(name) (\(commit.prefix(12))): building: \(buildCommand)")
        // The command runs in the worktree as `sh -c` would run it there, with TMPDIR inside
        // the temporary folder: what the build leaves there (SwiftPM's lock files) goes with it.
        let scratch = prepared.temporary + "/tmp-" + name
        _ = LocalFiles.makeFolder(scratch, mode: 0o700)
        let built = ChildProcess.run(
            [
                "/bin/sh", "-c", "cd -- \"$1\" && TMPDIR=\"$3\" && export TMPDIR && eval \"$2\"",
                "premain-build", tree, buildCommand, scratch,
            ], timeoutSeconds: buildTimeoutSeconds)
        if built.timedOut, let buildTimeoutSeconds {
            throw Failure(
                message:
                    "\(name): the build command did not finish within --build-timeout \(Self.seconds(buildTimeoutSeconds)) s in \(tree); it was ended"
            )
        }
        guard built.status == 0 else {
            throw Failure(message: "\(name): the build command exited with status \(built.status) in \(tree)")
        }
        let folder = tree + "/" + artifact
        guard LocalFiles.kind(folder) == .folder else {
            throw Failure(message: "\(name): --artifact \(artifact) is not a folder after the build (in \(tree))")
        }
        if let cacheDirectory {
            let cached = cacheDirectory + "/" + commit
            let partial = cached + ".partial"
            // Copied under another name first, so that an interrupted copy is never taken for a cache hit.
            let copied =
                ChildProcess.run(["mkdir", "-p", partial]).status == 0
                && ChildProcess.run(["cp", "-a", folder + "/.", partial + "/"]).status == 0
                && ChildProcess.run(["mv", "-T", partial, cached]).status == 0
            if copied {
                log("\(name) (\(commit.prefix(12))): artifacts kept in \(cached)")
            } else {
                _ = ChildProcess.run(["rm", "-rf", "--", partial])
                log("\(name) (\(commit.prefix(12))): could not copy the artifacts to \(cached); not cached")
            }
        }
        return folder
    }

    /// "30", "2.5": a number of seconds as given.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A new folder `$TMPDIR/premain-pr-XXXXXX` (`/tmp` without TMPDIR); `nil` when it cannot be made.
    static func temporaryFolder() -> String? {
        try? LocalFiles.makeTemporaryFolder("pr").get()
    }
}

extension String {
    /// Without trailing newlines and carriage returns (a command's one-line output).
    var trimmingNewlines: String {
        var text = self
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
