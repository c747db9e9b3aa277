import LosslessText
import PremainAudit
import PremainJudge
import PremainLaunch
import PremainModel

/// `premain pr` as a library: two artifact folders (given, or built from two commits), read as
/// `diff` reads them, their static diff and findings placed in the checkout, the paired
/// comparison of one program in them, and one report over both. Never prints: what the CLI
/// says on stderr comes back in `Outcome.problems` and through `log`.
public struct PullRequestSession: Sendable {
    public var launcher: any Launcher
    /// How the dependency closures of the programs are resolved; `nil`: none.
    public var closures: ClosureOptions?
    /// The comparison's clock and load average, replaceable in tests (`CompareSession`'s).
    public var compareSession: @Sendable (any Launcher) -> CompareSession = { CompareSession(launcher: $0) }

    public init(launcher: any Launcher, closures: ClosureOptions? = RuleInputLoader.resolvingClosures) {
        self.launcher = launcher
        self.closures = closures
    }

    /// Where the two sides come from.
    public enum Sides: Sendable {
        /// Two artifact folders.
        case folders(base: String, head: String)
        /// Two revisions of the git repository of the current folder, built into worktrees.
        case commits(base: String, head: String, builds: CommitBuilds)
    }

    /// What to compare and how.
    public struct Request: Sendable {
        public var sides: Sides
        /// The program in each folder to compare; `nil`: not measured (unless `rows`).
        public var run: String?
        /// premain.json's launch matrix (rows of launch × temperature) to compare instead of
        /// `run`: each launch's program found in each folder, the rows interleaved; `nil`: `run`.
        public var rows: [PlannedRow]?
        /// Its arguments.
        public var arguments: [String] = []
        /// Its environment, as `NAME=value`.
        public var environment: [String] = []
        /// Read the relocatable objects of the folders too.
        public var includeObjects = false
        public var config = PremainConfig()
        /// Findings at or above fail; `nil` for never.
        public var failOn: Severity? = .error
        public var compare = CompareOptions()
        /// The checkout the sources are in (`--source-root`); `nil`: the head worktree with
        /// commits, else the checkout holding `workingDirectory`.
        public var sourceRoot: String?
        public var workingDirectory = "/"

        public init(sides: Sides, run: String?) {
            self.sides = sides
            self.run = run
        }
    }

    /// The report, and what was said about it.
    public struct Outcome: Sendable {
        public var report: PullRequestReport
        /// The static diff as `diff` makes it, findings placed in the checkout: SARIF and
        /// annotations are made from it (without the function budgets `report.diff` adds).
        public var diff: DiffReport
        /// Places findings in the checkout (SARIF, annotations).
        public var locator: SourceLocator
        /// One line each for stderr, in order (a program missing from a folder, a comparison that
        /// could not run).
        public var problems: [String] = []
        /// `--run` names no executable in a folder: the reports are written, the exit code is 3.
        public var programMissing = false
    }

    /// Why there is no report.
    public enum Failure: Error, Sendable {
        /// A commit could not be checked out or built (one line).
        case build(String)
        /// A folder could not be read, or holds no ELF executable or library (one line each).
        case inputs([String])
    }

    /// The two artifact folders, as given or as built.
    struct PreparedSides {
        var base: String
        var head: String
        var baseLabel: String
        var headLabel: String
        var commits: PullRequestReport.Commits?
        /// The head commit's worktree with commits (the repository when head came from the
        /// cache); `nil` for folders.
        var sourceRoot: String?
    }

    /// Runs the pipeline; the worktrees of `.commits` are removed before it returns. `log`
    /// gets the build steps, `progress` the launches.
    public func run(
        _ request: Request, log: (String) -> Void = { _ in },
        progress: (LaunchProgress) -> Void = { _ in }
    ) throws(Failure) -> Outcome {
        var prepared: CommitBuilds.Prepared?
        defer { prepared?.remove() }
        let sides: PreparedSides
        switch request.sides {
        case .folders(let base, let head):
            sides = PreparedSides(base: base, head: head, baseLabel: base, headLabel: head)
        case .commits(let base, let head, let builds):
            do {
                let built = try builds.prepare(base: base, head: head, log: log)
                prepared = built
                sides = PreparedSides(
                    base: built.base, head: built.head,
                    baseLabel: "\(base) (\(built.baseCommit.prefix(12))): \(builds.artifact)",
                    headLabel: "\(head) (\(built.headCommit.prefix(12))): \(builds.artifact)",
                    commits: .init(base: built.baseCommit, head: built.headCommit),
                    sourceRoot: built.worktrees.first { $0.hasSuffix("/head") } ?? built.repository)
            } catch {
                throw .build(error.message)
            }
        }

        // The static part: both folders read as premain diff reads them.
        let loader = RuleInputLoader(closures: closures, includeObjects: request.includeObjects)
        let base = loader.load([sides.base])
        let head = loader.load([sides.head])
        var inputProblems: [String] = (base.errors + head.errors).map {
            "\(TextSafety.display($0.path)): \($0.message)"
        }
        for (name, folder, loaded) in [("base", sides.base, base), ("head", sides.head, head)]
        where loaded.input.objects.isEmpty {
            let skipped = loaded.skipped.summary.map { " (\($0))" } ?? ""
            inputProblems.append(
                "\(name): no ELF executable or shared library in \(TextSafety.display(folder))\(skipped)")
        }
        guard inputProblems.isEmpty else { throw .inputs(inputProblems) }
        var diff = DiffBuilder(config: request.config, failOn: request.failOn ?? .error)
            .diff(base: base.input, head: head.input, baseLabel: sides.baseLabel, headLabel: sides.headLabel)
        let root = request.sourceRoot ?? sides.sourceRoot ?? SourceLocator.sourceRoot(from: request.workingDirectory)
        let locator = SourceLocator(
            scope: SourceScope(
                root: root, artifacts: [sides.base, sides.head],
                workingDirectory: request.workingDirectory))
        diff.findings = locator.locate(diff.findings)

        // The measured part.
        var problems: [String] = []
        let measured = measure(request, sides: sides, problems: &problems, progress: progress)
        let report = PullRequestBuilder.report(
            diff: diff, measured: measured, command: request.run.map { [$0] + request.arguments },
            skipped: .init(base: base.skipped, head: head.skipped), commits: sides.commits,
            budgets: request.config.budgets, launches: (request.rows ?? []).map(\.row.launch))
        var outcome = Outcome(report: report, diff: diff, locator: locator, problems: problems)
        if case .notMeasured(_, .missingExecutable) = measured { outcome.programMissing = true }
        return outcome
    }

    /// The paired comparison of `request.run` in both folders, or why there is none. The
    /// program is resolved inside each folder only (never in PATH); a missing one is named with
    /// its folder.
    func measure(
        _ request: Request, sides: PreparedSides, problems: inout [String],
        progress: (LaunchProgress) -> Void
    ) -> PullRequestBuilder.Measured {
        if let rows = request.rows {
            return measureMatrix(request, rows: rows, sides: sides, problems: &problems, progress: progress)
        }
        guard let run = request.run else { return .notMeasured("no --run given", .noRun) }
        var executables: [String] = []
        for (name, folder) in [("base", sides.base), ("head", sides.head)] {
            switch ArtifactProgram.resolve(folder, run: run) {
            case .success(let path): executables.append(path)
            case .failure(let problem):
                problems.append("\(name): \(problem.message)")
                return .notMeasured("\(name): \(problem.message)", .missingExecutable)
            }
        }
        var options = request.compare
        // Labels end in the program's name: the comparison's headline names the command by it.
        func label(_ folder: String) -> String { (folder.hasSuffix("/") ? folder : folder + "/") + run }
        options.baseLabel = label(sides.baseLabel)
        options.headLabel = label(sides.headLabel)
        do {
            let report = try compareSession(launcher).compare(
                base: executables[0], head: executables[1], arguments: request.arguments,
                environment: request.environment, options: options, progress: progress)
            return .compared(report)
        } catch {
            problems.append(error.description)
            return .notMeasured(error.description, .launchFailed)
        }
    }

    /// The paired comparison of every row of the launch matrix, each launch's program resolved
    /// inside each folder (never in PATH; a missing one is named with its launch and folder).
    func measureMatrix(
        _ request: Request, rows: [PlannedRow], sides: PreparedSides, problems: inout [String],
        progress: (LaunchProgress) -> Void
    ) -> PullRequestBuilder.Measured {
        var requests: [CompareRowRequest] = []
        for planned in rows {
            let launch = planned.row.launch
            var paths: [String] = []
            for (name, folder) in [("base", sides.base), ("head", sides.head)] {
                switch ArtifactProgram.resolve(folder, run: launch.run[0]) {
                case .success(let path): paths.append(path)
                case .failure(let problem):
                    let message = "launch '\(launch.name)', \(name): \(problem.message)"
                    problems.append(message)
                    return .notMeasured(message, .missingExecutable)
                }
            }
            requests.append(
                CompareRowRequest(planned, base: paths[0], head: paths[1], environment: request.environment))
        }
        var options = request.compare
        options.baseLabel = sides.baseLabel
        options.headLabel = sides.headLabel
        do {
            return .matrix(try compareSession(launcher).compare(rows: requests, options: options, progress: progress))
        } catch {
            problems.append(error.description)
            return .notMeasured(error.description, .launchFailed)
        }
    }
}
