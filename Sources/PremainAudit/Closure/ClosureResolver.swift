import Dispatch
import ELFKit
import ELFValues
import LosslessText
import PremainModel
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Resolves a program's load closure the way glibc's `ld.so` does (`elf/dl-load.c`
/// `_dl_map_object`, `elf/dl-deps.c` `_dl_map_object_deps`), without running anything.
///
/// Breadth-first from the program's `DT_NEEDED`. A name already loaded (equal to an object's
/// SONAME, path or a name it was requested by) is not loaded again. A name with a slash is a
/// path (tokens expanded). Any other name is searched in order: `DT_RPATH` of the requesting
/// object, then of the object that loaded it, and so on up to the program (only when the
/// requesting object has no `DT_RUNPATH`, which also cancels its own `DT_RPATH`);
/// `LD_LIBRARY_PATH` when given; `DT_RUNPATH` of the requesting object; `ld.so.cache`; the
/// default directories. `DF_1_NODEFLIB` on the requesting object skips the default
/// directories and cache entries inside them. Each search-path directory is tried with its
/// `glibc-hwcaps` and legacy subdirectories first. A candidate whose ELF class or machine
/// differs is skipped. A file found under a second name (same device and inode) is the same
/// object. The program's `PT_INTERP` is part of the closure.
///
/// Thread-safe: `resolve` keeps its state per call, so one resolver serves many threads.
public final class ClosureResolver: Sendable {
    public let options: ClosureOptions
    /// The cache, or `nil` when it is missing or unusable (then `ld.so` skips it too).
    public let cache: LdSoCache?
    /// Why the cache could not be used, when it could not.
    public let cacheProblem: String?
    /// Facts and costs of files, shared by every `resolve` of this resolver.
    public let store: ObjectStore
    let root: String
    let cacheLogicalPath: String
    /// Searches already made, shared by every `resolve` (the file system does not change
    /// during a run).
    let searches = SharedTable<ClosureWalk.SearchKey, ClosureWalk.SearchOutcome>()
    /// Search contexts by run-wide id.
    let searchContexts = SharedTable<ClosureWalk.SearchContext, Int>()
    /// The loader of each class and machine met in the run.
    let platforms = SharedTable<PlatformKey, LoaderPlatform>()

    struct PlatformKey: Hashable, Sendable {
        var elfClass: ELFClass
        var machine: ELFMachine
    }

    /// `LoaderPlatform.forTarget` for `elfClass`/`machine`, made once per run.
    func platform(elfClass: ELFClass, machine: ELFMachine) -> LoaderPlatform {
        let key = PlatformKey(elfClass: elfClass, machine: machine)
        if let known = platforms.value(key) { return known }
        return platforms.insertIfAbsent(key, LoaderPlatform.forTarget(elfClass: elfClass, machine: machine))
    }
    /// Whether a logical directory exists, shared likewise: each is `stat`ed once per run.
    let directories = SharedTable<ByteKey, Bool>()
    /// How many directories were `stat`ed (tests: a missing one once, its subdirectories never).
    let folderProbes = Atomic<Int>(0)
    /// Each search context's plan, by context id.
    let searchPlans = SharedTable<Int, ClosureWalk.SearchPlan>()
    /// The context of a requester that searches only the cache and the default directories
    /// (`ClosureWalk.plainSlot`): it depends on nothing but `DF_1_NODEFLIB`, the platform and
    /// the program's byte order, so it is made once per run, not once per walk.
    let plainContexts = SharedTable<PlainContextKey, ClosureWalk.KnownContext>()

    struct PlainContextKey: Hashable, Sendable {
        var noDefaultLib: Bool
        var elfClass: ELFClass
        var machine: ELFMachine
        var endianness: ELFEndianness
    }

    /// `store` defaults to a new one that counts costs when `options.computeCosts`.
    public init(options: ClosureOptions = .init(), store: ObjectStore? = nil) {
        self.options = options
        self.store = store ?? ObjectStore(measuresCosts: options.computeCosts, providesSymbols: options.findUnused)
        root = options.root
        let cachePath = options.cachePath ?? root + "/etc/ld.so.cache"
        cacheLogicalPath = options.cachePath ?? "/etc/ld.so.cache"
        do {
            cache = try LdSoCache(path: cachePath)
            cacheProblem = nil
        } catch {
            cache = nil
            cacheProblem = error.message
        }
    }

    /// The closure of the program at `path`. Throws when the program itself cannot be opened.
    public func resolve(path: String) throws(ELFOpenError) -> DependencyClosure {
        try resolve(ELFFile(path: path))
    }

    /// The closure of `program`. A program without `.dynamic` has an empty closure.
    /// `programCost`, when the caller has counted it already, saves counting it again.
    public func resolve(_ program: ELFFile, programCost: ObjectCost? = nil) -> DependencyClosure {
        let walk = ClosureWalk(resolver: self, program: program, programCost: programCost)
        walk.run()
        return walk.result()
    }

    /// The closure of `program`, walked and bound on another thread while `work` runs on this
    /// one; `work` returns its result and the program's cost, which the closure's totals use.
    /// `program` must be a handle of its own that nothing else uses meanwhile (its tables fill
    /// in lazily, unsynchronized): open the file a second time. For one large file on a
    /// machine with idle cores.
    /// `afterWalk` runs on the other thread once the walk and binding are done (it may use
    /// `program` then).
    public func resolveConcurrently<T>(
        _ program: ELFFile, afterWalk: @escaping () -> Void = {},
        while work: () -> (T, ObjectCost)
    ) -> (T, DependencyClosure) {
        let walk = ClosureWalk(resolver: self, program: program)
        let side = ConcurrentWalk(walk, then: afterWalk)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { side.run() }
        let (value, cost) = work()
        group.wait()
        walk.programCost = cost
        return (value, walk.result(unused: side.unused))
    }

    /// The host path of a path as the program sees it.
    func hostPath(_ logical: String) -> String {
        guard !root.isEmpty else { return logical }
        return logical.hasPrefix("/") ? root + logical : logical
    }

    /// The program's view of a host path.
    func logicalPath(_ host: String) -> String {
        guard !root.isEmpty else { return host }
        if host == root { return "/" }
        if host.hasPrefix(root + "/") { return String(host.dropFirst(root.count)) }
        return host
    }
}

/// How `ClosureResolver` searches, as `ld.so` would for a program started without
/// `LD_PRELOAD`.
public struct ClosureOptions: Sendable, Equatable {
    /// The root the program runs under: paths from `DT_RPATH`, `DT_RUNPATH`, `PT_INTERP`,
    /// the cache and the default directories are read inside it. `nil` or `"/"` for this
    /// machine.
    public var sysroot: String?
    /// `LD_LIBRARY_PATH` directories, searched after `DT_RPATH` and before `DT_RUNPATH`;
    /// `[]` to search none (the default: the caller's environment is not the program's).
    public var libraryPath: [String]
    /// The cache file; `nil` for `<sysroot>/etc/ld.so.cache`.
    public var cachePath: String?
    /// Work out which `DT_NEEDED` entries provide no imported symbol.
    public var findUnused: Bool
    /// Count each object's relocations, initializers and exports.
    public var computeCosts: Bool
    /// How many heaviest objects `DependencyClosure.top` lists.
    public var topCount: Int

    public init(
        sysroot: String? = nil, libraryPath: [String] = [], cachePath: String? = nil,
        findUnused: Bool = true, computeCosts: Bool = true, topCount: Int = 5
    ) {
        self.sysroot = sysroot
        self.libraryPath = libraryPath
        self.cachePath = cachePath
        self.findUnused = findUnused
        self.computeCosts = computeCosts
        self.topCount = topCount
    }

    /// The sysroot without trailing slashes; `""` for the real root.
    var root: String {
        guard var root = sysroot, !root.isEmpty else { return "" }
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        return root == "/" ? "" : root
    }
}

/// A walk handed to one other thread: `run` walks and binds there, then runs `then`; the
/// caller reads `unused` only after waiting for it (`DispatchGroup.wait` orders the accesses).
private final class ConcurrentWalk: @unchecked Sendable {
    let walk: ClosureWalk
    let then: () -> Void
    var unused: [String]?

    init(_ walk: ClosureWalk, then: @escaping () -> Void) {
        self.walk = walk
        self.then = then
    }

    func run() {
        walk.run()
        unused = walk.unusedNeeded()
        then()
    }
}
