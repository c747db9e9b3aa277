import FoundationEssentials
import PremainAudit
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Turns what the user names — an ELF file, a folder, or a JSON report written by
/// `premain audit`, `measure` or `trace` — into a `RuleInput`. Reads files; never prints.
public struct RuleInputLoader: Sendable {
    /// The closure as `ld.so` would load it on this machine: unused dependencies found, costs
    /// not computed. One resolver serves every program of a load, so ld.so.cache is read once
    /// and each library is opened once (its `ObjectStore`), not once per program.
    public static let resolvingClosures = ClosureOptions(findUnused: true, computeCosts: false)

    /// How each program's closure is resolved; `nil` when closures are not computed.
    public let closures: ClosureOptions?
    /// The one resolver of every load of this loader (ld.so.cache read once, each library opened
    /// once for diff's two sides).
    private let resolver: ClosureResolver?
    /// Where to find the glibc the programs will run against when no closure names one.
    public var systemLibcPaths: [String]

    /// `libc.so.6` in the default directories of this machine's loader (its multiarch folder
    /// first), then `/lib64` and `/usr/lib`.
    public static var hostLibcPaths: [String] {
        var paths = (LoaderPlatform.host?.defaultDirectories ?? []).map { $0 + "/libc.so.6" }
        for fallback in ["/lib64/libc.so.6", "/usr/lib/libc.so.6"] where !paths.contains(fallback) {
            paths.append(fallback)
        }
        return paths
    }
    /// Read the relocatable objects found in folders too (`--include-objects`).
    public var includeObjects: Bool
    /// Worker threads of the audit (`BatchAudit`).
    public var workers: Int

    public init(
        closures: ClosureOptions? = nil, systemLibcPaths: [String] = RuleInputLoader.hostLibcPaths,
        includeObjects: Bool = false, workers: Int = BatchAudit.processorCount
    ) {
        self.closures = closures
        resolver = closures.map { ClosureResolver(options: $0) }
        self.systemLibcPaths = systemLibcPaths
        self.includeObjects = includeObjects
        self.workers = workers
    }

    /// What was loaded, the files that could not be, and what the folders held that was left out.
    public struct Loaded: Sendable {
        public var input: RuleInput
        public var errors: [FileError]
        /// Files of the folders left out: relocatable objects (unless `includeObjects`),
        /// non-ELF files, JSON files that are not premain reports.
        public var skipped = SkippedFiles()
        /// What was left out of the input and why: measurements of a build none of the audited
        /// files is (`RuleInput.dropForeignLaunches`). `[]` when nothing was.
        public var notes: [String] = []
    }

    /// One thing a path gives, in the order the paths name them.
    private enum Step {
        case error(FileError)
        /// The ELF file at this index of the audited files; `quietly` when found in a folder.
        case object(Int, quietly: Bool)
        case report(String, fromFolder: Bool)
    }

    /// Loads every path into one input. A folder contributes its ELF executables and libraries
    /// (found recursively as `FileCollector` does: a symlinked folder named here is followed,
    /// symbolic links inside it are not) and its JSON
    /// reports; JSON files in it that are not premain reports (SwiftPM's
    /// `output-file-map.json`) are skipped and counted, not errors. The ELF files are audited
    /// together through `BatchAudit` (on all cores, each program's closure with them); what
    /// they give is added in the order the paths name them. `progress` hears of each step from
    /// the first folder walked to the last file audited (from worker threads).
    public func load(_ paths: [String], progress: (@Sendable (AuditProgress) -> Void)? = nil) -> Loaded {
        var loaded = Loaded(input: RuleInput(), errors: [])
        var steps: [Step] = []
        var files: [String] = []
        var sizes: [String: Int] = [:]
        func audit(_ file: String, quietly: Bool) {
            steps.append(.object(files.count, quietly: quietly))
            files.append(file)
        }
        for path in paths {
            switch LocalFiles.kind(path) {
            case .missing:
                steps.append(.error(FileError(path: path, reason: .missing, message: "no such file or folder")))
            case .folder:
                let collected = FileCollector.collect(
                    [path], options: .init(includeObjects: includeObjects, reports: true), progress: progress)
                steps += collected.unreadable.map(Step.error)
                loaded.skipped.add(collected.skipped)
                sizes.merge(collected.sizes) { first, _ in first }
                for file in collected.files {
                    if Self.isReport(file) {
                        steps.append(.report(file, fromFolder: false))
                    } else {
                        audit(file, quietly: true)
                    }
                }
                steps += collected.reports.map { .report($0, fromFolder: true) }
            case .other:
                // Refused before any open: a FIFO or a device would block or never end.
                steps.append(.error(FileError(path: path, reason: .notRegularFile, message: "not a regular file")))
            case .file:
                if Self.isReport(path) {
                    steps.append(.report(path, fromFolder: false))
                } else {
                    audit(path, quietly: false)
                }
            }
        }
        let batch = BatchAudit(
            inventory: InventoryOptions(symbolLists: true, demangle: true), closure: closures,
            workers: workers, closureScope: .programs)
        var counted: (@Sendable (Int, Int) -> Void)?
        if let progress {
            progress(.auditing(done: 0, total: files.count))
            counted = { done, total in progress(.auditing(done: done, total: total)) }
        }
        let outcomes = files.isEmpty ? [] : batch.audit(files, sizes: sizes, resolver: resolver, progress: counted)
        for step in steps {
            switch step {
            case .error(let error):
                loaded.errors.append(error)
            case .report(let path, let fromFolder):
                loadReport(path, into: &loaded, fromFolder: fromFolder)
            case .object(let index, let quietly):
                switch outcomes[index] {
                case .audited(var binary):
                    let closure = binary.closure
                    // The rules read a program's closure from `closures`, not from its inventory.
                    binary.closure = nil
                    binary.unusedNeeded = nil
                    binary.closureSkipped = nil
                    loaded.input.objects.append(binary)
                    if let closure {
                        loaded.input.closures.append(
                            ProgramClosure(
                                name: ObjectName.of(binary), path: binary.path, closure: closure,
                                toolchain: binary.toolchain))
                    }
                case .failed(let error):
                    // In a folder only files that are not ELF at all are left out quietly, as
                    // audit does; an unreadable or broken ELF file is an error.
                    if !quietly || error.reason != .notELF { loaded.errors.append(error) }
                }
            }
        }
        if loaded.input.glibc == nil { loaded.input.glibc = glibc(for: loaded.input) }
        loaded.notes += loaded.input.dropForeignLaunches()
        return loaded
    }

    /// A JSON report rather than an ELF file: named `*.json`, or text that starts like JSON.
    static func isReport(_ path: String) -> Bool {
        path.hasSuffix(".json") || LocalFiles.startsLikeJSON(path)
    }

    /// Reads a JSON report. Found in a folder, a file that is not a premain report at all is
    /// counted in `skipped`; one that is a premain report but cannot be read is an error.
    func loadReport(_ path: String, into loaded: inout Loaded, fromFolder: Bool) {
        guard let data = Self.readWhole(path) else {
            loaded.errors.append(FileError(path: path, reason: .unreadable, message: "cannot read the file"))
            return
        }
        do {
            try loaded.input.merge(Self.report(data))
        } catch {
            if fromFolder && !error.isPremainReport {
                loaded.skipped.notReports.append(path)
            } else {
                loaded.errors.append(FileError(path: path, reason: .malformed, message: error.description))
            }
        }
    }

    /// The bytes of the regular file at `path`, read straight into one buffer of the size
    /// `fstat` gives (no growing array, no second copy: a report can be tens of MB); `nil`
    /// when it cannot be opened or read, is not a regular file, or is over 1 GiB.
    public static func readWhole(_ path: String) -> Data? {
        let fd = LocalFiles.openForReading(path, regularOnly: true)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let info = LocalFiles.status(descriptor: fd), info.st_size >= 0, info.st_size <= 1 << 30 else {
            return nil
        }
        var data = Data(count: Int(info.st_size))
        var filled = 0
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            while filled < buffer.count {
                let count = Glibc.read(fd, base + filled, buffer.count - filled)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return count == 0 }
                filled += count
            }
            return true
        }
        guard complete else { return nil }
        // A file that shrank meanwhile gives what was there.
        if filled < data.count { data.removeSubrange(filled...) }
        return data
    }

    /// A problem with a JSON report.
    public struct ReportError: Error, CustomStringConvertible {
        public var description: String
        /// `true` when the keys say which premain report it is but it does not decode as one;
        /// `false` for JSON that is not a premain report at all (or not a JSON object).
        public var isPremainReport = false
    }

    /// Reads an audit, measure or trace report into a `RuleInput`. Throws when the text is not
    /// a JSON object, or not one of these reports as this premain writes them.
    public static func report(_ text: String) throws(ReportError) -> RuleInput {
        try report(Data(text.utf8))
    }

    /// Decodes `data`, in one pass, as the report its header says it is (`ReportHeader`) and
    /// reads that.
    static func report(_ data: Data) throws(ReportError) -> RuleInput {
        do {
            switch try JSONDecoder().decode(RuleReport.self, from: data) {
            case .audit(let report): return RuleInput(audit: report)
            case .measure(let report): return RuleInput(measure: report)
            case .trace(let report): return RuleInput(trace: report)
            }
        } catch let error as RuleReport.Mismatch {
            throw ReportError(
                description:
                    "not \(error.kind.article) report of this premain version: \(Self.describe(error.underlying))",
                isPremainReport: true)
        } catch let error as RuleReport.UnsupportedVersion {
            throw ReportError(
                description:
                    "schemaVersion \(error.version) is not supported; this premain reads \(error.kind.article) report of version \(error.kind.readableVersionsText)",
                isPremainReport: true)
        } catch is RuleReport.Unknown {
            throw ReportError(
                description:
                    "not a premain report (expected 'binaries' from audit or 'measurements' from measure or trace)")
        } catch {
            throw ReportError(description: "not a JSON object")
        }
    }

    /// A decoding error in one line: where (`measurements[0].milestones`) and what.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else {
            // Foundation's parser reports a number it cannot hold (1e300 as an Int) by the
            // name of its own internal error.
            let text = "\(error)"
            return text.contains("numberIsNotRepresentable") ? "a number out of range" : text
        }
        func place(_ path: [any CodingKey]) -> String {
            var text = ""
            for key in path {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "the document" : text
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(place(context.codingPath + [key])): missing"
        case .valueNotFound(let type, let context): return "\(place(context.codingPath)): expected \(type), found null"
        case .typeMismatch(_, let context) where context.debugDescription.contains("not representable"),
            .dataCorrupted(let context)
        where context.debugDescription.contains("not representable")
            || context.debugDescription.contains("numberIsNotRepresentable"):
            return "\(place(context.codingPath)): a number out of range"
        case .typeMismatch(let type, let context): return "\(place(context.codingPath)): expected \(type)"
        case .dataCorrupted(let context): return "\(place(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// The glibc of the closure's libc; else the newest `GLIBC_2.x` the objects require
    /// when that alone proves 2.36 or later; else this machine's libc (premain checks
    /// usually run where the program runs); `nil` when none is found.
    func glibc(for input: RuleInput) -> GlibcVersion? {
        for program in input.closures {
            if let libc = program.closure.objects.first(where: {
                $0.soname == "libc.so.6" || ObjectName.fileName($0.path) == "libc.so.6"
            }),
                let version = GlibcVersion.definedBy(libcPath: libc.path)
            {
                return version
            }
        }
        let required = input.objects.compactMap { GlibcVersion.requiredBy(path: $0.path) }.max()
        if let required, required >= .relrSupport { return required }
        for path in systemLibcPaths {
            if let version = GlibcVersion.definedBy(libcPath: path) { return version }
        }
        return required
    }
}

/// A report the rules read (an audit, measure or trace), decoded as the kind its header says
/// (`ReportHeader`: its `kind`, else its keys).
enum RuleReport: Decodable {
    case audit(AuditReport), measure(MeasureReport), trace(TraceReport)

    /// A report of a kind premain knows, but of a `schemaVersion` it does not read.
    struct UnsupportedVersion: Error {
        var kind: ReportKind
        var version: Int
    }

    /// A JSON object that is no audit, measure or trace report.
    struct Unknown: Error {}

    /// The kind was told, but the document is not that report as this premain writes it.
    struct Mismatch: Error {
        var kind: ReportKind
        var underlying: any Error
    }

    /// Throws `Unknown`, `UnsupportedVersion` or `Mismatch`, or the decoder's error when the
    /// document is not a JSON object.
    init(from decoder: any Decoder) throws {
        let header = try ReportHeader(from: decoder)
        guard let kind = header.kind, kind == .audit || kind == .measure || kind == .trace else { throw Unknown() }
        // Absent in hand-written reports: read as the current version.
        if let version = header.schemaVersion, !kind.readableVersions.contains(version) {
            throw UnsupportedVersion(kind: kind, version: version)
        }
        do {
            switch kind {
            case .audit: self = .audit(try AuditReport(from: decoder))
            case .measure: self = .measure(try MeasureReport(from: decoder))
            case .trace: self = .trace(try TraceReport(from: decoder))
            default: throw Unknown()
            }
        } catch {
            throw Mismatch(kind: kind, underlying: error)
        }
    }
}
