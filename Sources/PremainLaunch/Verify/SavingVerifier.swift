import ELFKit
import Glibc
import LosslessText
import PremainModel
import PremainSystem

/// `check --verify`: proves an unused dependency's saving on a copy. The program is copied
/// twice into a temporary folder (its `$ORIGIN` run paths made absolute, so both copies find
/// what the original finds); from the second copy `patchelf --remove-needed` drops the
/// finding's libraries; the two are then compared as `premain compare` does (paired,
/// interleaved ABBA blocks) and the saving at main is reported beside the estimate. The
/// user's files are only read.
public struct SavingVerifier: Sendable {
    public let launcher: any Launcher
    public var options: CompareOptions
    /// The patchelf to run (looked up in PATH).
    public var patchelf = "patchelf"
    /// Where the copies are made (`$TMPDIR`, else /tmp).
    public var temporaryRoot: String

    /// A saving is an estimate to be measured, not a change to be judged against compare's
    /// ±0.5 ms threshold: a small threshold, at least 30 pairs, at most 30 s per finding, and
    /// no attribution tracing.
    public static var defaultOptions: CompareOptions {
        var options = CompareOptions(
            settings: CompareSettings(
                thresholdMs: 0.02, thresholdPercent: 0.5, minRuns: 30,
                maxRuns: 400, maxSeconds: 30))
        options.explain = .never
        return options
    }

    public init(launcher: any Launcher, options: CompareOptions = SavingVerifier.defaultOptions, temporaryRoot: String)
    {
        self.launcher = launcher
        self.options = options
        self.temporaryRoot = temporaryRoot
    }

    /// The libraries `finding` says can go, when it is an unused dependency with a program path.
    public static func removable(_ finding: Finding) -> [String]? {
        guard finding.rule == "unused_direct_dependency", finding.subject.path != nil else { return nil }
        if let members = finding.grouped { return members.map(\.name) }
        if finding.costBasis?.note != nil { return nil }  // another object needs it: nothing to prove
        return finding.subject.symbol.map { [$0] }
    }

    /// Verifies each removable finding against the launch that priced it (its arguments and
    /// environment); the others are returned unchanged. `progress` gets a line per finding.
    public func verify(
        _ findings: [Finding], launches: [LaunchMeasurement], environment: [String],
        progress: (String) -> Void = { _ in }
    ) -> [Finding] {
        findings.map { finding in
            guard let libraries = Self.removable(finding), let program = finding.subject.path else { return finding }
            var verified = finding
            let launch = launches.first { $0.command.first.map(ObjectName.fileName) == ObjectName.fileName(program) }
            let arguments = launch.map { Array($0.command.dropFirst()) } ?? []
            progress(
                "verifying \(finding.fingerprint): \(ObjectName.fileName(program)) without \(libraries.joined(separator: ", "))"
            )
            verified.verification = verify(
                program: program, removing: libraries, arguments: arguments,
                environment: environment, estimateMs: finding.costMs)
            return verified
        }
    }

    /// One verification: never throws; a step that fails is the verification's `error`.
    public func verify(
        program: String, removing libraries: [String], arguments: [String], environment: [String],
        estimateMs: Double?
    ) -> SavingVerification {
        var result = SavingVerification(
            change: "removed DT_NEEDED " + libraries.joined(separator: ", "),
            estimateMs: estimateMs)
        let name = ObjectName.fileName(program)
        guard let file = try? ELFFile(path: program) else {
            result.error = "\(program): cannot read it as an ELF file"
            return result
        }
        switch file.objectKind {
        case .executable, .pieExecutable: break
        default:
            result.error =
                "\(name) is a library, not a program: only a program is launched (verify a program that needs it)"
            return result
        }
        let folder: String
        // Removed on SIGINT, SIGTERM, SIGHUP and SIGQUIT, and by the watchdog when premain is
        // killed outright (the copies are in folders of their own, which the launch guard's flat
        // folder removal would leave); the watchdog is told the name before the folder exists.
        switch LocalFiles.makeTemporaryFolder(
            "verify", in: temporaryRoot, beforeMaking: { _ = LaunchGuard.cleanUpAtExit(["/bin/rm", "-rf", "--", $0]) })
        {
        case .success(let made): folder = made
        case .failure(let error):
            _ = LaunchGuard.cleanUpAtExit([])
            result.error = error.message
            return result
        }
        defer {
            Self.remove(folder)
            _ = LaunchGuard.cleanUpAtExit([])
        }
        let base = folder + "/base/" + name
        let head = folder + "/head/" + name
        mkdir(folder + "/base", 0o700)
        mkdir(folder + "/head", 0o700)
        var copy = [patchelf]
        if let runPath = Self.copiedRunPath(of: file, program: program, folder: folder) {
            copy += ["--set-rpath", runPath.paths] + (runPath.keepRPATH ? ["--force-rpath"] : [])
        }
        copy += ["--output", base, program]
        if let error = run(copy) {
            result.error = error
            return result
        }
        var remove = [patchelf]
        for library in libraries { remove += ["--remove-needed", library] }
        remove += ["--output", head, base]
        if let error = run(remove) {
            result.error = error
            return result
        }
        do {
            let report = try CompareSession(launcher: launcher).compare(
                base: base, head: head, arguments: arguments, environment: environment, options: options)
            let time =
                report.times.first { $0.quantity == .milestone(.main) }
                ?? report.times.first { $0.quantity == .milestone(.firstOutput) }
            result.quantity = time?.quantity
            if let difference = time?.difference {
                result.savingMs = -difference.medianMs
                result.savingLowMs = -difference.highMs
                result.savingHighMs = -difference.lowMs
                result.level = difference.level
                result.pairs = difference.pairs
            }
            result.verdict = time?.result
            result.runsPerSide = report.runs.perSide
            let failures = report.base.failures + report.head.failures
            if !failures.isEmpty { result.error = "the copies failed: " + failures.joined(separator: "; ") }
        } catch {
            result.error = error.description
        }
        return result
    }

    /// The run path of the copies when the program's holds `$ORIGIN` (`${ORIGIN}`); `nil` when
    /// it holds none (the copy finds what the original finds). `$ORIGIN` stays `$ORIGIN`, led
    /// to the program's folder through `FOLDER/origin`, a link to the folder of the program's
    /// real file (the loader takes `$ORIGIN` from the executable's real path, links resolved),
    /// so no folder name is written into the run path: one holding ':' would be split there.
    /// DT_RPATH stays DT_RPATH (`--force-rpath`): patchelf would write DT_RUNPATH, which the
    /// libraries do not inherit.
    static func copiedRunPath(of file: ELFFile, program: String, folder: String) -> (paths: String, keepRPATH: Bool)? {
        let keepRPATH = file.runpath.isEmpty && !file.rpath.isEmpty
        let paths = keepRPATH ? file.rpath : file.runpath
        guard paths.contains(where: { $0.contains("$ORIGIN") || $0.contains("${ORIGIN}") }) else { return nil }
        // realpath(3): absolute, links resolved, as the loader's $ORIGIN of an executable.
        guard let real = LocalFiles.realPath(program),
            LosslessUTF8.withCString(
                LocalFiles.directory(of: real),
                { target in LosslessUTF8.withCString(folder + "/origin") { symlink(target, $0) } }) == 0
        else { return nil }
        let led = "$ORIGIN/../origin"
        return (
            paths.map { $0.replacing("${ORIGIN}", with: led).replacing("$ORIGIN", with: led) }.joined(separator: ":"),
            keepRPATH
        )
    }

    /// Runs a patchelf step; the error line when it fails.
    func run(_ arguments: [String]) -> String? {
        let finished = ChildProcess.run(arguments, timeoutSeconds: 60)
        if finished.status == 127 { return "cannot run \(patchelf): install it (Debian: apt-get install patchelf)" }
        if finished.status != 0 { return "\(arguments.joined(separator: " ")) failed with status \(finished.status)" }
        return nil
    }

    static func remove(_ folder: String) {
        for side in ["base", "head"] { LocalFiles.removeFolderAndFiles(folder + "/" + side) }
        // The link to the program's folder is unlinked, never followed.
        LocalFiles.removeFolderAndFiles(folder)
    }
}
