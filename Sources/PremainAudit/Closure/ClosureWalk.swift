import ELFKit
import ELFValues
import LosslessText
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The state of one `ClosureResolver.resolve` call.
final class ClosureWalk {
    let resolver: ClosureResolver
    let platform: LoaderPlatform
    /// The program, open (for symbol binding).
    let program: ELFFile
    var objects: [LoadedObject] = []
    var missing: [MissingLibrary] = []
    /// Objects in breadth-first order (indices into `objects`), the program first.
    var loadOrder: [Int] = []
    /// The program's `DT_NEEDED`: each name and the object it loaded (`nil`: missing). Only
    /// the program's are kept: symbol binding asks for no other object's.
    var programNeeded: [(name: String, object: Int?)] = []
    /// By run-wide name number (names compared as bytes, as `_dl_name_match_p`'s `strcmp`
    /// does): the first object loaded under that name.
    private var byName = NumberIndex()
    /// By run-wide file number: the object of that device and inode.
    private var byFileID = NumberIndex()
    private var searched: [String] = []
    private var wrongClass: [String] = []
    /// Search contexts by requester index, interned run-wide, with their plans.
    private var contexts: [Int: KnownContext] = [:]
    /// The run-wide id of the context of every requester without search paths of its own or up
    /// its loader chain (most objects), by `DF_1_NODEFLIB`: looked up once per walk (the context
    /// is the run's, `ClosureResolver.plainContexts`).
    private var plainContextIDs: [Int?] = [nil, nil]

    /// The program's cost when the caller counted it (`nil`: counted in `result`).
    var programCost: ObjectCost?

    init(resolver: ClosureResolver, program: ELFFile, programCost: ObjectCost? = nil) {
        self.resolver = resolver
        self.program = program
        self.programCost = programCost
        platform = resolver.platform(elfClass: program.elfClass, machine: program.machine)
        let store = resolver.store
        let facts = FileFacts(program)
        let main = LoadedObject(
            file: facts, placed: nil, names: [store.nameNumber("")],
            neededNumbers: facts.needed.map(store.nameNumber),
            sonameNumber: facts.soname.map(store.nameNumber),
            fileNumber: store.fileNumber(FileIdentity(device: facts.device, inode: facts.inode)),
            path: program.path, logicalPath: resolver.logicalPath(program.path),
            requestedName: program.path, foundVia: .directPath, searchDirectory: nil,
            depth: 0, loader: nil,
            originOfProgram: { [resolver] in
                // Its real path's folder, as `/proc/self/exe` gives it: resolved only when a
                // `$ORIGIN` is expanded (most programs expand none).
                resolver.logicalPath(LocalFiles.directory(of: resolver.store.realPath(program.path)))
            })
        main.rpathInChain = !facts.rpath.isEmpty
        main.order = 0
        objects.append(main)
        register(0)
        loadOrder.append(0)
    }

    func run() {
        let program = objects[0].file
        guard program.hasDynamic || program.interpreter != nil else { return }
        if let interpreter = program.interpreter {
            let host = resolver.hostPath(interpreter)
            if let placed = resolver.store.placed(host), accepts(placed.facts) {
                let object = LoadedObject(
                    placed, names: [resolver.store.nameNumber(interpreter)], path: host,
                    logicalPath: interpreter, requestedName: interpreter,
                    foundVia: .interpreter, searchDirectory: nil, depth: 1, loader: nil,
                    originOf: interpreter)
                object.rpathInChain = !placed.facts.rpath.isEmpty
                object.neededBy = 0
                objects.append(object)
                register(objects.count - 1)
            } else {
                missing.append(
                    MissingLibrary(
                        name: interpreter, neededBy: objects[0].path, searched: [host],
                        wrongClass: []))
            }
        }
        var cursor = 0
        while cursor < loadOrder.count {
            let requester = loadOrder[cursor]
            cursor += 1
            let object = objects[requester]
            if requester == 0 {
                programNeeded = zip(object.file.needed, object.neededNumbers).map { name, number in
                    (name, load(name, number, requester: requester))
                }
            } else {
                for (name, number) in zip(object.file.needed, object.neededNumbers) {
                    _ = load(name, number, requester: requester)
                }
            }
        }
        // The interpreter is mapped even when nobody names it.
        for (index, object) in objects.enumerated() where object.order == nil {
            object.order = loadOrder.count
            loadOrder.append(index)
        }
    }

    /// Loads `name` for `requester`; the object's index, or `nil` when it is missing.
    /// `number`: the run-wide number of `name`.
    private func load(_ name: String, _ number: Int, requester: Int) -> Int? {
        if let existing = byName[number] {
            reach(existing, from: requester)
            return existing
        }
        searched = []
        wrongClass = []
        guard let found = search(name, number, requester: requester) else {
            missing.append(
                MissingLibrary(
                    name: name, neededBy: objects[requester].path, searched: searched,
                    wrongClass: wrongClass))
            return nil
        }
        if let same = byFileID[found.placed.fileNumber] {
            if !objects[same].names.contains(number) { objects[same].names.append(number) }
            byName.claim(number, same)
            reach(same, from: requester)
            return same
        }
        let object = LoadedObject(
            found.placed, names: number == found.logicalNumber ? [number] : [number, found.logicalNumber],
            path: found.host, logicalPath: found.logical, requestedName: name,
            foundVia: found.via, searchDirectory: found.directory,
            depth: objects[requester].depth + 1, loader: requester,
            originOf: found.logical)
        object.rpathInChain = !found.placed.facts.rpath.isEmpty || objects[requester].rpathInChain
        objects.append(object)
        register(objects.count - 1)
        reach(objects.count - 1, from: requester)
        return objects.count - 1
    }

    /// Puts `index` in the breadth-first list the first time a `DT_NEEDED` reaches it.
    private func reach(_ index: Int, from requester: Int) {
        let object = objects[index]
        guard object.order == nil, index != 0 else { return }
        object.order = loadOrder.count
        loadOrder.append(index)
        if object.foundVia != .interpreter {
            object.neededBy = requester
        }
    }

    /// Indexes the names and the file identity of `objects[index]`, for `_dl_map_object`'s
    /// first loop: an object already loaded under a name (a name it was requested or loaded
    /// by, or its SONAME). The first object to claim a name keeps it, as glibc's walk of the
    /// loaded list in load order finds the earliest.
    private func register(_ index: Int) {
        let object = objects[index]
        for name in object.names { byName.claim(name, index) }
        if let soname = object.sonameNumber { byName.claim(soname, index) }
        byFileID.claim(object.fileNumber, index)
    }

    /// A search context with its run-wide id and its plan.
    struct KnownContext: Sendable {
        var id: Int
        var value: SearchContext
        var plan: SearchPlan
    }

    /// One group of search-path directories and the tag an object found there gets.
    struct SearchStep: Hashable, Sendable {
        var directories: [String]
        var via: FoundVia
    }

    /// Everything but the name a search for a name without a slash depends on: the platform
    /// (which the program's class and machine fix) and the program's byte order decide which
    /// candidates are accepted.
    struct SearchContext: Hashable, Sendable {
        var steps: [SearchStep]
        var noDefaultLib: Bool
        var elfClass: ELFClass
        var machine: ELFMachine
        var endianness: ELFEndianness
    }

    /// A name and the id of its search context (`ClosureResolver.searchContexts`).
    struct SearchKey: Hashable, Sendable {
        /// The name's run-wide number (`ObjectStore.nameNumber`).
        var name: Int
        var context: Int
    }

    /// Where a search context looks, worked out once per run (`ClosureResolver.searchPlans`):
    /// the folders that exist, in the order `open_path` tries them, and every directory named,
    /// for `MissingLibrary.searched`. A directory that does not exist costs one `stat` per run
    /// and its `glibc-hwcaps` and legacy subdirectories none, as ld.so's
    /// `r_search_path_status` remembers `nonexisting`: a name is tried only where a file can
    /// be, so many missing `LD_LIBRARY_PATH` directories times many names is not a product.
    struct SearchPlan: Sendable {
        struct Place: Sendable {
            /// The folder tried (logical): a directory or one of its subdirectories.
            var folder: String
            /// The search-path directory it belongs to (`ClosureObject.searchDirectory`).
            var directory: String
            var via: FoundVia
        }
        /// The existing folders of the context's steps, in order.
        var places: [Place] = []
        /// The host path of every directory of the steps, in order.
        var searched: [String] = []
        /// The same for the default directories; empty under `DF_1_NODEFLIB`.
        var defaultPlaces: [Place] = []
        var defaultSearched: [String] = []
    }

    /// A search's result and the places it looked, as `MissingLibrary` reports them (`[]` when
    /// it found the library: only a missing one lists them).
    struct SearchOutcome: Sendable {
        var found: Found?
        var searched: [String]
        var wrongClass: [String]
    }

    struct Found: Sendable {
        var placed: PlacedObject
        var host: String
        var logical: String
        /// The run-wide number of `logical`.
        var logicalNumber: Int
        var via: FoundVia
        var directory: String?
    }

    private func search(_ name: String, _ number: Int, requester: Int) -> Found? {
        let loader = objects[requester]
        if Self.hasSlash(name) {
            guard
                let expanded = DynamicStringTokens.expand(
                    name, origin: loader.origin, lib: platform.libToken,
                    platform: platform.platformToken)
            else {
                searched.append(name)
                return nil
            }
            let host = resolver.hostPath(expanded)
            searched.append(host)
            guard let placed = open(host) else { return nil }
            return Found(
                placed: placed, host: host, logical: expanded, logicalNumber: resolver.store.nameNumber(expanded),
                via: .directPath, directory: nil)
        }
        // The outcome depends only on the name and the search context (directories in order,
        // DF_1_NODEFLIB, platform): every requester of a run that searches the same way shares
        // it. The context is interned once per requester, so a look-up hashes only the name.
        let key = SearchKey(name: number, context: searchContextID(requester))
        if let known = resolver.searches.value(key) {
            searched = known.searched
            wrongClass = known.wrongClass
            return known.found
        }
        let context = searchContext(requester)
        let found = run(name, context.value, context.plan)
        resolver.searches.insertIfAbsent(key, SearchOutcome(found: found, searched: searched, wrongClass: wrongClass))
        return found
    }

    /// Whether `requester` searches only the cache and the default directories (no
    /// `DT_RPATH` up its chain or in the program, no `LD_LIBRARY_PATH`, no `DT_RUNPATH`), and
    /// which of the two plain contexts (with or without `DF_1_NODEFLIB`) it has.
    private func plainSlot(_ requester: Int) -> Int? {
        let object = objects[requester]
        let plain =
            !object.file.hasRunpath && object.file.runpath.isEmpty && !object.rpathInChain
            && objects[0].file.rpath.isEmpty && resolver.options.libraryPath.isEmpty
        return plain ? (object.file.noDefaultLib ? 1 : 0) : nil
    }

    /// `searchContext(requester).id` without copying the context: all a search that was made
    /// before needs.
    private func searchContextID(_ requester: Int) -> Int {
        if let slot = plainSlot(requester) {
            if let id = plainContextIDs[slot] { return id }
        } else if let known = contexts[requester] {
            return known.id
        }
        return searchContext(requester).id
    }

    /// The search context of `requester`, its run-wide id and its plan: once per run for a
    /// plain requester, once per walk for another.
    private func searchContext(_ requester: Int) -> KnownContext {
        guard let slot = plainSlot(requester) else {
            if let known = contexts[requester] { return known }
            let context = makeContext(requester)
            contexts[requester] = context
            return context
        }
        let key = ClosureResolver.PlainContextKey(
            noDefaultLib: objects[requester].file.noDefaultLib, elfClass: platform.elfClass,
            machine: platform.machine, endianness: objects[0].file.endianness)
        let context =
            resolver.plainContexts.value(key) ?? resolver.plainContexts.insertIfAbsent(key, makeContext(requester))
        plainContextIDs[slot] = context.id
        return context
    }

    private func makeContext(_ requester: Int) -> KnownContext {
        let value = SearchContext(
            steps: searchSteps(requester), noDefaultLib: objects[requester].file.noDefaultLib,
            elfClass: platform.elfClass, machine: platform.machine,
            endianness: objects[0].file.endianness)
        let id = resolver.searchContexts.intern(value)
        let plan = resolver.searchPlans.value(id) ?? resolver.searchPlans.insertIfAbsent(id, searchPlan(value))
        return KnownContext(id: id, value: value, plan: plan)
    }

    /// The plan of `context`: each directory `stat`ed once per run (`exists`), and the
    /// subdirectories only of those that exist.
    private func searchPlan(_ context: SearchContext) -> SearchPlan {
        var plan = SearchPlan()
        func add(_ dirs: [String], via: FoundVia, to places: inout [SearchPlan.Place], _ searched: inout [String]) {
            for dir in dirs {
                searched.append(resolver.hostPath(dir))
                guard exists(dir) else { continue }
                for subdirectory in platform.searchSubdirectories {
                    let folder = Self.join(dir, subdirectory)
                    if exists(folder) { places.append(.init(folder: folder, directory: dir, via: via)) }
                }
                places.append(.init(folder: dir, directory: dir, via: via))
            }
        }
        for step in context.steps { add(step.directories, via: step.via, to: &plan.places, &plan.searched) }
        if !context.noDefaultLib {
            add(platform.defaultDirectories, via: .defaultPath, to: &plan.defaultPlaces, &plan.defaultSearched)
        }
        return plan
    }

    /// The search-path directories `_dl_map_object` tries for a name without a slash, in
    /// order, before the cache: `DT_RPATH` up the loader chain and the program's (only when
    /// the requester has no `DT_RUNPATH`), `LD_LIBRARY_PATH`, the requester's `DT_RUNPATH`.
    private func searchSteps(_ requester: Int) -> [SearchStep] {
        let loader = objects[requester]
        var steps: [SearchStep] = []
        if !loader.file.hasRunpath {
            var chain: Int? = requester
            var didMain = false
            while let index = chain {
                let dirs = objects[index].rpath(platform)
                if !dirs.isEmpty {
                    steps.append(SearchStep(directories: dirs, via: .rpath))
                    didMain = didMain || index == 0
                }
                chain = objects[index].loader
            }
            if !didMain { steps.append(SearchStep(directories: objects[0].rpath(platform), via: .rpath)) }
        }
        if !resolver.options.libraryPath.isEmpty {
            let dirs = resolver.options.libraryPath.compactMap { element -> String? in
                let raw = element.isEmpty ? "." : element
                return DynamicStringTokens.expand(
                    raw, origin: objects[0].origin, lib: platform.libToken,
                    platform: platform.platformToken)
            }
            steps.append(SearchStep(directories: dirs, via: .ldLibraryPath))
        }
        steps.append(SearchStep(directories: loader.runpath(platform), via: .runpath))
        return steps
    }

    /// Searches `name` as `context` says: its directories, then the cache, then the default
    /// directories. `searched` lists them only when nothing is found.
    private func run(_ name: String, _ context: SearchContext, _ plan: SearchPlan) -> Found? {
        if let found = openFirst(name, plan.places) { return found }
        let noDefaultLib = context.noDefaultLib
        if let cache = resolver.cache {
            if var path = cache.lookup(
                name, defaultFlags: platform.cacheFlags,
                acceptsFlags: platform.acceptsCacheFlags,
                hwcapPriority: platform.hwcapsPriority)
            {
                if noDefaultLib && platform.defaultDirectories.contains(where: { path.hasPrefix($0 + "/") }) {
                    path = ""
                }
                if !path.isEmpty {
                    let host = resolver.hostPath(path)
                    if let placed = open(host) {
                        return Found(
                            placed: placed, host: host, logical: path, logicalNumber: resolver.store.nameNumber(path),
                            via: .ldSoCache, directory: LocalFiles.directory(of: path))
                    }
                }
            }
        }
        if let found = openFirst(name, plan.defaultPlaces) { return found }
        searched = plan.searched
        if resolver.cache != nil { searched.append(resolver.cacheLogicalPath) }
        searched += plan.defaultSearched
        return nil
    }

    /// `open_path`: `name` in each of `places` (a directory's hwcaps subdirectories first).
    private func openFirst(_ name: String, _ places: [SearchPlan.Place]) -> Found? {
        for place in places {
            let logical = Self.join(place.folder, name)
            let host = resolver.hostPath(logical)
            if let placed = open(host) {
                return Found(
                    placed: placed, host: host, logical: logical, logicalNumber: resolver.store.nameNumber(logical),
                    via: place.via, directory: place.directory)
            }
        }
        return nil
    }

    /// `open_verify`: the file when it is ELF of the program's class and machine; a
    /// wrong-class candidate is remembered and skipped.
    private func open(_ host: String) -> PlacedObject? {
        guard let placed = resolver.store.placed(host) else { return nil }
        guard accepts(placed.facts) else {
            wrongClass.append(host)
            return nil
        }
        return placed
    }

    private func accepts(_ file: FileFacts) -> Bool {
        file.elfClass == platform.elfClass && file.machine == platform.machine
            && file.endianness == objects[0].file.endianness
    }

    private func exists(_ logicalDirectory: String) -> Bool {
        let key = ByteKey(logicalDirectory)
        if let known = resolver.directories.value(key) { return known }
        resolver.folderProbes.add(1, ordering: .relaxed)
        let host = resolver.hostPath(logicalDirectory)
        let result = LocalFiles.kind(host) == .folder
        return resolver.directories.insertIfAbsent(key, result)
    }

    /// `true` when `name` has a `/` (a path, not searched for), scanned on its contiguous
    /// UTF-8: `String.UTF8View.contains` goes through the view's iterator, at hundreds of
    /// instructions per name.
    static func hasSlash(_ name: String) -> Bool {
        let found = name.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte == UInt8(ascii: "/") { return true }
            return false
        }
        return found ?? name.utf8.contains(UInt8(ascii: "/"))
    }

    static func join(_ dir: String, _ name: String) -> String {
        dir.hasSuffix("/") ? dir + name : dir + "/" + name
    }

    /// The program's `DT_NEEDED` entries that provide none of its imports, when the options
    /// ask for them (`[]` otherwise).
    func unusedNeeded() -> [String] {
        resolver.options.findUnused ? SymbolBinder(walk: self).unusedNeededOfProgram() : []
    }

    /// The walk's closure as the model reports it: the objects in load order (the program left
    /// out), the missing names, and the costs and unused `DT_NEEDED` entries when the options
    /// ask for them.
    /// `unused`: the unused `DT_NEEDED` entries when `unusedNeeded()` already worked them out.
    func result(unused known: [String]? = nil) -> DependencyClosure {
        var list: [ClosureObject] = []
        list.reserveCapacity(loadOrder.count)
        let unused = known ?? unusedNeeded()
        var costs: [ObjectCost?] = []
        if resolver.options.computeCosts {
            costs = objects.indices.map { index in
                index == 0
                    ? programCost ?? ObjectCost.measure(program)
                    : objects[index].placed?.cost ?? resolver.store.cost(objects[index].path)
            }
        }
        for index in loadOrder where index != 0 {
            let object = objects[index]
            let parent = object.neededBy.map { objects[$0].path } ?? objects[0].path
            let real = object.placed?.realPath ?? resolver.store.realPath(object.path)
            let logicalReal = resolver.logicalPath(real)
            list.append(
                ClosureObject(
                    path: object.path, realPath: real, soname: object.soname, requestedName: object.requestedName,
                    foundVia: object.foundVia, searchDirectory: object.searchDirectory.map(resolver.hostPath),
                    depth: object.depth, neededBy: parent, needed: object.file.needed,
                    system: Self.isSystem(object.logicalPath) || Self.isSystem(logicalReal),
                    cost: costs.isEmpty ? nil : costs[index]))
        }
        var closure = DependencyClosure(objects: list, missing: missing)
        if let program = costs.first ?? nil {
            closure.program = program
            closure.totals = ClosureTotals(program: program, objects: list)
            closure.top = ObjectShare.top(list, program: program, count: resolver.options.topCount)
        }
        closure.unusedNeeded = unused
        return closure
    }
}

extension ClosureWalk {
    /// Whether `path` is under a system library directory (`/lib/`, `/usr/lib/`, `/lib64/`,
    /// `/usr/lib64/`, `/lib32/`, `/usr/lib32/`), by its bytes: objects there are folded in the
    /// text tree.
    static func isSystem(_ path: String) -> Bool {
        path.utf8HasPrefix("/lib/") || path.utf8HasPrefix("/usr/lib/") || path.utf8HasPrefix("/lib64/")
            || path.utf8HasPrefix("/usr/lib64/") || path.utf8HasPrefix("/lib32/") || path.utf8HasPrefix("/usr/lib32/")
    }
}

extension Dictionary {
    /// Stores `value` under `key` unless a value is there already, in one look-up: a mutating
    /// access through the `default:` subscript inserts the default only when the key is absent.
    mutating func claim(_ key: Key, _ value: Value) {
        func access(_: inout Value) {}
        access(&self[key, default: value])
    }
}
