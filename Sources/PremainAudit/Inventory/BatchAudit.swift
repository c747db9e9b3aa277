import Dispatch
import ELFKit
import PremainModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Audits many files on all cores: each file's inventory, and its load closure when asked.
/// Never prints; progress goes to a callback.
public struct BatchAudit: Sendable {
    public var inventory: InventoryOptions
    /// Resolve each file's closure; `nil` to skip closures.
    public var closure: ClosureOptions?
    /// Worker threads; defaults to the number of active processors.
    public var workers: Int
    /// Audit the relocatable objects found in folders too (`--include-objects`).
    public var includeObjects: Bool
    /// Which files get a closure when `closure` is set.
    public var closureScope: ClosureScope

    /// `audit` resolves every file's closure; the judges only programs'.
    public enum ClosureScope: Sendable {
        /// Every file that loads something (a library's closure too).
        case everyFile
        /// Programs only: files that are not relocatable and have an interpreter or no soname.
        case programs
    }

    public init(
        inventory: InventoryOptions = .init(), closure: ClosureOptions? = .init(),
        workers: Int = BatchAudit.processorCount, includeObjects: Bool = false,
        closureScope: ClosureScope = .everyFile
    ) {
        self.inventory = inventory
        self.closure = closure
        self.workers = max(1, workers)
        self.includeObjects = includeObjects
        self.closureScope = closureScope
    }

    public static var processorCount: Int {
        max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Audits `paths` (files and folders, see `FileCollector`). Files found in folders that
    /// are not ELF executables or libraries are skipped and counted in `skipped`; named files
    /// that cannot be audited are `errors`.
    /// `progress` hears of every step from the start (walking folders, reading their files'
    /// first bytes, auditing), from worker threads. `resolver`, when given, resolves the
    /// closures (as in `audit`), and outlives the run for the caller.
    public func run(
        _ paths: [String], resolver: ClosureResolver? = nil, progress: (@Sendable (AuditProgress) -> Void)? = nil
    ) -> AuditReport {
        let collected = FileCollector.collect(
            paths, options: .init(includeObjects: includeObjects), progress: progress)
        progress?(.auditing(done: 0, total: collected.files.count))
        var counted: (@Sendable (Int, Int) -> Void)?
        if let progress { counted = { done, total in progress(.auditing(done: done, total: total)) } }
        // Each outcome moved out of the list, not copied: a copy of an inventory retains every
        // string and array it holds, and a folder's copies and releases cost 7 M instructions.
        var outcomes = audited(collected.files, sizes: collected.sizes, resolver: resolver, progress: counted)
        var binaries: [BinaryInventory] = []
        binaries.reserveCapacity(outcomes.count)
        var errors = collected.unreadable
        for (index, file) in collected.files.enumerated() {
            let outcome =
                outcomes[index].take() ?? .failed(FileError(path: file, reason: .unreadable, message: "not audited"))
            switch consume outcome {
            case .audited(let inventory):
                binaries.append(inventory)
            case .failed(let error):
                let quiet = collected.fromFolders.contains(file) && error.reason == .notELF
                if !quiet { errors.append(error) }
            }
        }
        var report = AuditReport(binaries: binaries, errors: errors)
        if !collected.skipped.isEmpty { report.skipped = collected.skipped }
        if paths.count > 1 || collected.fromFolders.count > 0 {
            report.summary = OffenderSummary(binaries, top: 10)
        }
        if let warning = DebugInfo.unavailableWarning { report.warnings = [warning] }
        return report
    }

    /// Audits each of `files` (already collected: regular files, not folders) on all cores,
    /// largest first by `sizes`; one outcome per file, in the files' order. `shared`, when
    /// given, resolves the closures instead of a resolver of this audit's own (so that several
    /// audits, such as diff's two sides, read ld.so.cache and each library once).
    public func audit(
        _ files: [String], sizes: [String: Int] = [:], resolver shared: ClosureResolver? = nil,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) -> [Outcome] {
        var outcomes = audited(files, sizes: sizes, resolver: shared, progress: progress)
        return files.indices.map { index in
            outcomes[index].take()
                ?? .failed(FileError(path: files[index], reason: .unreadable, message: "not audited"))
        }
    }

    /// `audit`'s outcomes, each in an optional its taker moves it out of (`take()`), `nil` for
    /// a file not audited: nothing is copied on the way.
    private func audited(
        _ files: [String], sizes: [String: Int], resolver shared: ClosureResolver?,
        progress: (@Sendable (Int, Int) -> Void)?
    ) -> [Outcome?] {
        let resolver = closure == nil ? nil : shared ?? closure.map { ClosureResolver(options: $0) }
        let scope = closureScope
        let results = Mutex<[Outcome?]>(Array(repeating: nil, count: files.count))
        let done = Atomic<Int>(0)
        let total = files.count
        let inventoryOptions = inventory
        let next = Atomic<Int>(0)
        // Fewer files than workers (one large library, say): each file's closure is walked
        // on a core of its own while its inventory is counted.
        let spareCores = total < workers
        // Largest files first (the results keep the files' order): a large file taken last
        // would leave the other cores idle while it is audited.
        let order = workers > 1 && total > workers ? Self.largestFirst(files, sizes: sizes) : Array(files.indices)
        let work: @Sendable () -> Void = {
            while true {
                let position = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard position < total else { return }
                let index = order[position]
                var outcome: Outcome? = Self.audit(
                    files[index], inventory: inventoryOptions, resolver: resolver,
                    scope: scope, concurrentClosure: spareCores)
                results.withLock { $0[index] = outcome.take() }
                let finished = done.wrappingAdd(1, ordering: .relaxed).newValue
                progress?(finished, total)
            }
        }
        let threads = min(workers, max(total, 1))
        if threads == 1 {
            work()
        } else {
            DispatchQueue.concurrentPerform(iterations: threads) { _ in work() }
        }
        return results.withLock { list in
            let taken = list
            list = []
            return taken
        }
    }

    /// The indices of `files`, largest file first by `sizes` (ties, and files without a size,
    /// in their order).
    static func largestFirst(_ files: [String], sizes known: [String: Int]) -> [Int] {
        let sizes = files.map { known[$0] ?? 0 }
        return files.indices.sorted { sizes[$0] != sizes[$1] ? sizes[$0] > sizes[$1] : $0 < $1 }
    }

    /// What auditing one file gave.
    public enum Outcome: Sendable {
        case audited(BinaryInventory)
        case failed(FileError)
    }

    static func audit(
        _ path: String, inventory options: InventoryOptions, resolver: ClosureResolver?,
        scope: ClosureScope = .everyFile, concurrentClosure: Bool = false
    ) -> Outcome {
        let file: ELFFile
        do {
            file = try ELFFile(path: path)
        } catch {
            return .failed(FileError(path: path, reason: error.reason, message: error.message))
        }
        let isProgram = file.type != 1 && (file.interpreter != nil || file.soname == nil)
        // A program's closure is resolved even when it loads nothing (the judges read it); a
        // library's only when it loads something, and only when every file gets one.
        let loads = scope == .programs ? isProgram : file.interpreter != nil || !file.neededLibraries.isEmpty
        var inventory: BinaryInventory
        var closure: DependencyClosure?
        if let resolver, loads, concurrentClosure, let second = try? ELFFile(path: path) {
            let audited: (BinaryInventory, DependencyClosure)
            // The Swift census (a scan of every .symtab name) goes to whichever core comes to it
            // first: this one when its inventory reaches it, else the other one when its walk is
            // done, on the second handle.
            let demangle = options.demangle
            let swiftTask = ClaimableTask<SwiftCensus?>()
            audited = resolver.resolveConcurrently(
                second,
                afterWalk: {
                    if swiftTask.claim() { swiftTask.finish(InventoryBuilder.swiftCensus(second, demangle: demangle)) }
                }
            ) {
                let (inventory, cost) = InventoryBuilder.auditWithCost(
                    file, options: options,
                    swiftCensus: {
                        guard swiftTask.claim() else { return swiftTask.wait() }
                        let census = InventoryBuilder.swiftCensus(file, demangle: demangle)
                        swiftTask.finish(census)
                        return census
                    })
                resolver.store.remember(file, cost: cost)
                return (inventory, cost)
            }
            (inventory, closure) = audited
            if second.changedSinceOpen { return changed(path) }
        } else {
            let cost: ObjectCost
            (inventory, cost) = InventoryBuilder.auditWithCost(file, options: options)
            if let resolver, loads, !file.changedSinceOpen {
                resolver.store.remember(file, cost: cost)
                closure = resolver.resolve(file, programCost: cost)
            }
        }
        if file.changedSinceOpen { return changed(path) }
        if let resolver, closure != nil {
            inventory.unusedNeeded = resolver.options.findUnused ? closure?.unusedNeeded : nil
            inventory.closure = closure.take()
        } else if resolver != nil, scope == .everyFile || isProgram {
            inventory.closureSkipped =
                file.dynamicEntries.isEmpty
                ? "statically linked: no dynamic loader runs and nothing is loaded, so there is no closure"
                : "no PT_INTERP and no DT_NEEDED: nothing to load"
        }
        return .audited(inventory)
    }

    private static func changed(_ path: String) -> Outcome {
        .failed(FileError(path: path, reason: .unreadable, message: ELFOpenError.changedWhileRead.message))
    }
}

/// A piece of work two threads may each do: the first to `claim` it does it and calls
/// `finish`; the other, if it needs the result, `wait`s for it.
final class ClaimableTask<Value: Sendable>: Sendable {
    private let state = Mutex<(claimed: Bool, value: Value?)>((false, nil))
    private let done = DispatchSemaphore(value: 0)

    /// `true` for the first caller only.
    func claim() -> Bool {
        state.withLock { state in
            defer { state.claimed = true }
            return !state.claimed
        }
    }

    func finish(_ value: Value) {
        state.withLock { $0.value = value }
        done.signal()
    }

    /// The value `finish` gave; waits for it (call only after `claim` returned `false`, and at
    /// most once).
    func wait() -> Value {
        done.wait()
        guard let value = state.withLock({ $0.value }) else {
            preconditionFailure("ClaimableTask finished without a value")
        }
        return value
    }
}
