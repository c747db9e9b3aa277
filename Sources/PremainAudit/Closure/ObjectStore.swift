import ELFKit
import ELFValues
import LosslessText
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A thread-safe memo of `FileFacts`, `ObjectCost` and symbol look-ups per file (device and
/// inode, so a library reached under several names is read once), shared by every closure of
/// one run: auditing a folder opens each library once, not once per program.
public final class ObjectStore: Sendable {
    private struct Slot: Sendable {
        var facts: FileFacts?
        var cost: ObjectCost?
        /// The file could not be opened as ELF (a linker script named `libc.so`, say).
        var unusable = false
    }
    /// Device and inode of a path; `nil` when it cannot be `stat`ed as a regular file.
    /// Paths are keys by their bytes (`ByteKey`): two names Unicode calls equal are two files.
    private let identities = SharedTable<ByteKey, FileIdentity?>()
    private let slots = SharedTable<FileIdentity, Slot>()
    private let providers = SharedTable<FileIdentity, SymbolProvider?>()
    private let realPaths = SharedTable<ByteKey, String>()
    /// Each host path a closure looked at, and what was found there (`nil`: nothing usable).
    private let placements = SharedTable<ByteKey, PlacedObject?>()
    /// Run-wide numbers of names (`DT_NEEDED`, `DT_SONAME`, paths) and of file identities.
    private let names = SharedTable<ByteKey, Int>()
    private let fileNumbers = SharedTable<FileIdentity, Int>()
    /// Count costs together with facts (one open per file instead of two).
    public let measuresCosts: Bool
    /// Make each file's symbol look-up (`provider`) when its facts are read, from the same
    /// open file: every library a closure finds is bound to when unused dependencies are
    /// looked for, and opening it a second time for that cost a `stat`, an `open`, a mapping
    /// and the section headers again.
    public let providesSymbols: Bool

    public init(measuresCosts: Bool = true, providesSymbols: Bool = false) {
        self.measuresCosts = measuresCosts
        self.providesSymbols = providesSymbols
    }

    /// `path` with symlinks and `..` resolved (`path` itself when it does not resolve), memoized.
    public func realPath(_ path: String) -> String {
        let key = ByteKey(path)
        if let known = realPaths.value(key) { return known }
        // The folder through this memo too: a folder's files are resolved with one lstat each.
        return realPaths.insertIfAbsent(key, LocalFiles.realPath(path, realFolder: realPath))
    }

    /// The run-wide number of `name` (compared as bytes): equal names, equal numbers.
    func nameNumber(_ name: String) -> Int {
        names.intern(ByteKey(name))
    }

    /// The run-wide number of a file identity.
    func fileNumber(_ identity: FileIdentity) -> Int {
        fileNumbers.intern(identity)
    }

    /// The ELF file at host path `path` as closures report it, made once per path per run;
    /// `nil` when it cannot be opened as ELF.
    func placed(_ path: String) -> PlacedObject? {
        let key = ByteKey(path)
        if let known = placements.value(key) { return known }
        guard let facts = facts(path), let identity = identity(path) else { return placements.insertIfAbsent(key, nil) }
        let cost = measuresCosts ? slots.value(identity)?.cost : nil
        let object = PlacedObject(
            facts: facts, path: path, realPath: realPath(path), cost: cost, identity: identity,
            fileNumber: fileNumber(identity), needed: facts.needed.map(nameNumber),
            soname: facts.soname.map(nameNumber))
        return placements.insertIfAbsent(key, object)
    }

    /// The device and inode of the regular file at `path` (symlinks followed), memoized;
    /// `nil` when there is none.
    func identity(_ path: String) -> FileIdentity? {
        let key = ByteKey(path)
        if let known = identities.value(key) { return known }
        let identity = LocalFiles.status(path).flatMap { info in
            info.st_mode & S_IFMT == S_IFREG
                ? FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) : nil
        }
        return identities.insertIfAbsent(key, identity)
    }

    /// Records what an audit of `file` already counted, so closures that contain it do not
    /// read it again.
    public func remember(_ file: ELFFile, cost: ObjectCost) {
        let identity = FileIdentity(device: file.device, inode: file.inode)
        slots.update(identity) { slot in
            guard slot?.facts == nil || slot?.cost == nil else { return }
            slot = Slot(facts: slot?.facts ?? FileFacts(file), cost: measuresCosts ? cost : slot?.cost)
        }
    }

    /// The open file and its symbol look-up, shared by every program that binds to it;
    /// `nil` when it cannot be opened or has no `.dynsym`.
    func provider(_ path: String) -> SymbolProvider? {
        guard let identity = identity(path) else { return nil }
        return provider(path, identity: identity)
    }

    /// `provider(path)` for a file whose identity is known.
    func provider(_ path: String, identity: FileIdentity) -> SymbolProvider? {
        if let known = providers.value(identity) { return known }
        return providers.insertIfAbsent(identity, (try? ELFFile(path: path)).flatMap(Self.makeProvider))
    }

    /// The look-up of `file`; `nil` without `.dynsym`. Reads the file's lazily filled tables:
    /// only the thread that opened it may call this, before the provider is shared.
    private static func makeProvider(_ file: ELFFile) -> SymbolProvider? {
        guard let lookup = ELFSymbolLookup(file) else { return nil }
        return SymbolProvider(file: file, lookup: lookup, versions: file.symbolVersions)
    }

    /// The facts of the ELF file at `path`; `nil` when it cannot be opened as ELF.
    public func facts(_ path: String) -> FileFacts? {
        guard let identity = identity(path) else { return nil }
        if let known = slots.value(identity) {
            if known.unusable { return nil }
            if known.facts != nil, !measuresCosts || known.cost != nil { return known.facts }
        }
        guard let file = try? ELFFile(path: path) else {
            slots.update(identity) { slot in if slot == nil { slot = Slot(unusable: true) } }
            return nil
        }
        let facts = FileFacts(file)
        let cost = measuresCosts ? ObjectCost.measure(file) : nil
        if providesSymbols, providers.value(identity) == nil {
            providers.insertIfAbsent(identity, Self.makeProvider(file))
        }
        // The pages the counts read (relocations, all of .dynsym) are given back: binding
        // reads a few of them again, and a large closure no longer holds every table at once.
        if file.fileSize >= 4 << 20 { file.releasePages() }
        var stored: FileFacts?
        slots.update(identity) { slot in
            var value = slot ?? Slot(facts: facts, cost: cost)
            if value.facts == nil { value.facts = facts }
            if value.cost == nil { value.cost = cost }
            slot = value
            stored = value.facts
        }
        return stored
    }

    /// The cost of the file at `path`, counted on first use; `nil` when it cannot be opened.
    public func cost(_ path: String) -> ObjectCost? {
        guard let identity = identity(path) else { return nil }
        if let known = slots.value(identity)?.cost { return known }
        guard let file = try? ELFFile(path: path) else { return nil }
        let cost = ObjectCost.measure(file)
        slots.update(identity) { slot in
            var value = slot ?? Slot(facts: FileFacts(file), cost: nil)
            value.cost = cost
            slot = value
        }
        return cost
    }
}

/// A file's device and inode: what the loader compares to tell two names of one object.
struct FileIdentity: Hashable, Sendable {
    var device: UInt64
    var inode: UInt64
}

/// What the resolver needs to know about one candidate file, read once.
public struct FileFacts: Sendable, Equatable {
    public var elfClass: ELFClass
    public var machine: ELFMachine
    public var endianness: ELFEndianness
    public var device: UInt64
    public var inode: UInt64
    public var soname: String?
    public var needed: [String]
    /// `DT_RPATH` split at colons; `[]` when absent or when `DT_RUNPATH` is present (glibc
    /// ignores `DT_RPATH` then).
    public var rpath: [String]
    public var runpath: [String]
    public var hasRunpath: Bool
    public var noDefaultLib: Bool
    public var interpreter: String?
    public var hasDynamic: Bool

    public init(_ file: ELFFile) {
        elfClass = file.elfClass
        machine = file.machine
        endianness = file.endianness
        device = file.device
        inode = file.inode
        soname = file.soname
        needed = file.neededLibraries
        hasRunpath = file.hasRunpath
        rpath = file.hasRunpath ? [] : file.rpath
        runpath = file.runpath
        noDefaultLib = file.noDefaultLib
        interpreter = file.interpreter
        hasDynamic = !file.dynamicEntries.isEmpty
    }
}

/// A dictionary shared by worker threads that mostly read it: a `pthread_rwlock_t` lets
/// readers run side by side (Swift's `Mutex` serializes them, and its priority-inheritance
/// futex is slow under contention).
final class SharedTable<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private var storage: [Key: Value] = [:]
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// The value for `key`, or `nil` when absent.
    func value(_ key: Key) -> Value? {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return storage[key]
    }

    /// Stores `value` unless another thread stored one first; returns the stored value.
    @discardableResult
    func insertIfAbsent(_ key: Key, _ value: Value) -> Value {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        if let existing = storage[key] { return existing }
        storage[key] = value
        return value
    }

    /// A run-wide number for `key`: the one it got first, else the next free one.
    func intern(_ key: Key) -> Int where Value == Int {
        if let known = value(key) { return known }
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        if let existing = storage[key] { return existing }
        let number = storage.count
        storage[key] = number
        return number
    }

    /// Changes the value for `key` in place (nil when absent).
    func update(_ key: Key, _ body: (inout Value?) -> Void) {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        body(&storage[key])
    }
}
