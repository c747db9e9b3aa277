/// The load closure of one program: every object `ld.so` would map for it, except the
/// program itself and the vDSO; the interpreter is included.
public struct DependencyClosure: Codable, JSONKeyed, Sendable, Equatable {
    /// Objects in load order (breadth-first).
    public var objects: [ClosureObject]
    public var missing: [MissingLibrary]
    public var totals: ClosureTotals?
    /// The heaviest objects, by their share of the closure's relocations, heaviest first.
    public var top: [ObjectShare]
    /// The program's own cost (not in `objects`), to which `totals` adds the objects' costs.
    public var program: ObjectCost?
    /// The program's `DT_NEEDED` entries that provide none of its imports (`ldd -u`).
    public var unusedNeeded: [String] = []

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case missing, objects, program, top, totals, unusedNeeded
    }

    public init(
        objects: [ClosureObject], missing: [MissingLibrary], totals: ClosureTotals? = nil,
        top: [ObjectShare] = [], program: ObjectCost? = nil
    ) {
        self.objects = objects
        self.missing = missing
        self.totals = totals
        self.top = top
        self.program = program
    }
}

/// One object `ld.so` maps for a program, other than the program itself.
public struct ClosureObject: Codable, JSONKeyed, Sendable, Equatable {
    /// The path as `ld.so` builds it (search directory + name, `$ORIGIN` expanded, not
    /// canonicalized), inside the sysroot when one is given.
    public var path: String
    /// `path` with symlinks and `..` resolved.
    public var realPath: String
    public var soname: String?
    /// The `DT_NEEDED` name that loaded it first (the interpreter: its `PT_INTERP` path).
    public var requestedName: String
    public var foundVia: FoundVia
    /// The search-path directory it was found in; `nil` for direct paths and the interpreter.
    public var searchDirectory: String?
    /// 1 for the program's own `DT_NEEDED`, 2 for theirs, and so on (breadth-first: the
    /// shortest chain). The interpreter has depth 1.
    public var depth: Int
    /// Path of the object whose `DT_NEEDED` loaded it first (the program for the interpreter).
    public var neededBy: String
    /// Its own `DT_NEEDED` names (in memory only, see `CodingKeys`).
    public var needed: [String] = []
    /// Under the system library directories (`/lib`, `/usr/lib`, ...): folded in the text tree.
    public var system: Bool
    /// What this object costs at start-up; `nil` when costs were not computed.
    public var cost: ObjectCost?

    /// Its entry in the report's `objects` table while a schema-2 report is decoded (`nil`
    /// once resolved, and always in schema 1).
    var tableID: Int?
    /// The entry of the object that loaded it, while a schema-2 report is decoded; `nil` for
    /// the program (depth 1).
    var tableNeededBy: Int?

    /// `cost` and `needed` are not written to JSON: every program that loads libc would repeat
    /// libc's figures and its `DT_NEEDED`. The closure's `totals` and `top` (`--top N` for more
    /// objects) carry the costs; each object's own audit carries its `needed`.
    /// In schema 2 (`ClosureObjectTable`) `object` (an id in the report's `objects` table)
    /// stands for `path`, `realPath`, `soname` and `system`, and `neededBy` is the id of the
    /// object that loaded it, absent when the program did (depth 1). In the JSON's order
    /// (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case depth, foundVia, neededBy, object, path, realPath, requestedName, searchDirectory, soname, system
    }

    public static let fieldsNotInJSON = ["cost", "needed", "tableID", "tableNeededBy"]

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try container.decodeIfPresent(Int.self, forKey: .object) {
            tableID = id
            path = ""
            realPath = ""
            system = false
            tableNeededBy = try container.decodeIfPresent(Int.self, forKey: .neededBy)
            neededBy = ""
        } else {
            path = try container.decode(String.self, forKey: .path)
            realPath = try container.decode(String.self, forKey: .realPath)
            soname = try container.decodeIfPresent(String.self, forKey: .soname)
            system = try container.decode(Bool.self, forKey: .system)
            neededBy = try container.decode(String.self, forKey: .neededBy)
        }
        requestedName = try container.decode(String.self, forKey: .requestedName)
        foundVia = try container.decode(FoundVia.self, forKey: .foundVia)
        searchDirectory = try container.decodeIfPresent(String.self, forKey: .searchDirectory)
        depth = try container.decode(Int.self, forKey: .depth)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let table = encoder.userInfo[ClosureObjectTable.userInfoKey] as? ClosureObjectTable,
            let reference = table.reference(for: self)
        {
            try container.encode(reference.id, forKey: .object)
            try container.encodeIfPresent(reference.loader, forKey: .neededBy)
        } else {
            try container.encode(path, forKey: .path)
            try container.encode(realPath, forKey: .realPath)
            try container.encodeIfPresent(soname, forKey: .soname)
            try container.encode(system, forKey: .system)
            try container.encode(neededBy, forKey: .neededBy)
        }
        try container.encode(requestedName, forKey: .requestedName)
        try container.encode(foundVia, forKey: .foundVia)
        try container.encodeIfPresent(searchDirectory, forKey: .searchDirectory)
        try container.encode(depth, forKey: .depth)
    }

    /// Takes `path`, `realPath`, `soname` and `system` from `record`, and `neededBy` from
    /// `loader` (`nil`: the program, at `programPath`).
    mutating func fill(from record: ClosureObjectRecord, loader: ClosureObjectRecord?, programPath: String) {
        path = record.path
        realPath = record.realPath
        soname = record.soname
        system = record.system
        neededBy = loader?.path ?? programPath
        tableID = nil
        tableNeededBy = nil
    }

    public init(
        path: String, realPath: String, soname: String?, requestedName: String, foundVia: FoundVia,
        searchDirectory: String?, depth: Int, neededBy: String, needed: [String], system: Bool,
        cost: ObjectCost?
    ) {
        self.path = path
        self.realPath = realPath
        self.soname = soname
        self.requestedName = requestedName
        self.foundVia = foundVia
        self.searchDirectory = searchDirectory
        self.depth = depth
        self.neededBy = neededBy
        self.needed = needed
        self.system = system
        self.cost = cost
    }
}

/// How `ld.so` found an object of the closure (libtree's tags).
public enum FoundVia: String, Codable, Sendable, CaseIterable {
    /// `DT_RPATH` of the requesting object or one of its loaders, or of the executable.
    case rpath
    /// `DT_RUNPATH` of the requesting object.
    case runpath
    /// `LD_LIBRARY_PATH` (only when the user passed `--library-path` or `--honor-env`).
    case ldLibraryPath
    /// `/etc/ld.so.cache`.
    case ldSoCache
    /// The loader's default directories.
    case defaultPath
    /// A `DT_NEEDED` name with a slash: a path.
    case directPath
    /// `PT_INTERP`: mapped by the kernel, not searched.
    case interpreter
}

/// A `DT_NEEDED` name `ld.so` would not find.
public struct MissingLibrary: Codable, JSONKeyed, Sendable, Equatable {
    public var name: String
    /// Path of the object that needs it first.
    public var neededBy: String
    /// Every place looked in, in order: directories (each also with its hwcaps
    /// subdirectories), and `ld.so.cache` as the cache file's path.
    public var searched: [String]
    /// Candidates rejected because their ELF class or machine differs.
    public var wrongClass: [String]

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case name, neededBy, searched, wrongClass
    }

    public init(name: String, neededBy: String, searched: [String], wrongClass: [String]) {
        self.name = name
        self.neededBy = neededBy
        self.searched = searched
        self.wrongClass = wrongClass
    }
}

/// The static pre-main cost model of a whole closure: the program plus every object it loads.
public struct ClosureTotals: Codable, JSONKeyed, Sendable, Equatable {
    /// Objects in the closure (the program not counted; the interpreter counted).
    public var objects: Int
    /// Relocations by class, summed over the program and every object.
    public var relocations: RelocationCensus
    /// Static initializers, summed.
    public var initializers: Int
    /// Exported dynamic symbols, summed.
    public var exported: Int
    /// Symbol look-ups at start-up (see `ObjectCost.lookups`), summed.
    public var lookups: Int

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case exported, initializers, lookups, objects, relocations
    }

    public init(program: ObjectCost, objects list: [ClosureObject]) {
        objects = list.count
        var relocations = program.relocations
        var initializers = program.initializers
        var exported = program.exported
        var lookups = program.lookups
        for object in list {
            guard let cost = object.cost else { continue }
            relocations.add(cost.relocations)
            initializers += cost.initializers
            exported += cost.exported
            lookups += cost.lookups
        }
        self.relocations = relocations
        self.initializers = initializers
        self.exported = exported
        self.lookups = lookups
    }
}

/// What one object costs the loader before `main`, counted from its tables.
public struct ObjectCost: Codable, JSONKeyed, Sendable, Equatable {
    /// Dynamic relocations by class (without the per-table list).
    public var relocations: RelocationCensus
    /// Static initializers the loader calls: `DT_PREINIT_ARRAY` and `DT_INIT_ARRAY` entries,
    /// `DT_INIT` as one, `.ctors` entries (without the 0 and -1 markers).
    public var initializers: Int
    /// Exported dynamic symbols (as `SymbolCensus.exported`).
    public var exported: Int
    /// Symbol look-ups the loader makes at start-up: every relocation naming a symbol
    /// (symbolic, copy, tls with a symbol), plus `JUMP_SLOT`s only when the object is bound
    /// immediately (`BIND_NOW`); lazily bound PLT slots are looked up on first call instead.
    /// Relocations naming a local symbol are counted too (rare in `.dynsym`).
    public var lookups: Int
    /// `BIND_NOW`: PLT slots are bound before `main`.
    public var bindNow: Bool

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case bindNow, exported, initializers, lookups, relocations
    }

    public init(relocations: RelocationCensus, initializers: Int, exported: Int, lookups: Int, bindNow: Bool) {
        self.relocations = relocations
        self.initializers = initializers
        self.exported = exported
        self.lookups = lookups
        self.bindNow = bindNow
    }
}

/// One object's share of the closure's cost.
public struct ObjectShare: Codable, JSONKeyed, Sendable, Equatable {
    public var path: String
    public var soname: String?
    public var relocations: Int
    /// `relocations` over the closure's total (program included), 0...1.
    public var relocationShare: Double
    public var lookups: Int
    public var initializers: Int
    public var exported: Int

    /// In schema 2 (`ClosureObjectTable`) `object` (an id in the report's `objects` table)
    /// stands for `path` and `soname`. In the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case exported, initializers, lookups, object, path, relocationShare, relocations, soname
    }

    public static let fieldsNotInJSON = ["tableID"]

    /// Its entry in the report's `objects` table while a schema-2 report is decoded.
    var tableID: Int?

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try container.decodeIfPresent(Int.self, forKey: .object) {
            tableID = id
            path = ""
        } else {
            path = try container.decode(String.self, forKey: .path)
            soname = try container.decodeIfPresent(String.self, forKey: .soname)
        }
        relocations = try container.decode(Int.self, forKey: .relocations)
        relocationShare = try container.decode(Double.self, forKey: .relocationShare)
        lookups = try container.decode(Int.self, forKey: .lookups)
        initializers = try container.decode(Int.self, forKey: .initializers)
        exported = try container.decode(Int.self, forKey: .exported)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let table = encoder.userInfo[ClosureObjectTable.userInfoKey] as? ClosureObjectTable,
            let id = table.id(ofPath: path)
        {
            try container.encode(id, forKey: .object)
        } else {
            try container.encode(path, forKey: .path)
            try container.encodeIfPresent(soname, forKey: .soname)
        }
        try container.encode(relocations, forKey: .relocations)
        try container.encode(relocationShare, forKey: .relocationShare)
        try container.encode(lookups, forKey: .lookups)
        try container.encode(initializers, forKey: .initializers)
        try container.encode(exported, forKey: .exported)
    }

    /// Takes `path` and `soname` from `record`.
    mutating func fill(from record: ClosureObjectRecord) {
        path = record.path
        soname = record.soname
        tableID = nil
    }

    /// The `count` objects with the most relocations, heaviest first (ties by path).
    public static func top(_ objects: [ClosureObject], program: ObjectCost, count: Int) -> [ObjectShare] {
        let total = objects.reduce(program.relocations.total) { $0 + ($1.cost?.relocations.total ?? 0) }
        let ranked = objects.compactMap { object -> ObjectShare? in
            guard let cost = object.cost else { return nil }
            return ObjectShare(
                path: object.path, soname: object.soname, relocations: cost.relocations.total,
                relocationShare: total == 0 ? 0 : Double(cost.relocations.total) / Double(total),
                lookups: cost.lookups, initializers: cost.initializers, exported: cost.exported)
        }.sorted { ($0.relocations, $1.path) > ($1.relocations, $0.path) }
        return Array(ranked.prefix(max(count, 0)))
    }

    public init(
        path: String, soname: String? = nil, relocations: Int, relocationShare: Double, lookups: Int,
        initializers: Int, exported: Int
    ) {
        self.path = path
        self.soname = soname
        self.relocations = relocations
        self.relocationShare = relocationShare
        self.lookups = lookups
        self.initializers = initializers
        self.exported = exported
    }
}

/// One object of a report's `objects` table (JSON schema version 2): what every closure that
/// contains it shares, written once; each closure refers to it by `id`.
public struct ClosureObjectRecord: Codable, JSONKeyed, Sendable, Equatable {
    public var id: Int
    public var path: String
    public var realPath: String
    public var soname: String?
    public var system: Bool

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, path, realPath, soname, system
    }

    public init(id: Int, path: String, realPath: String, soname: String?, system: Bool) {
        self.id = id
        self.path = path
        self.realPath = realPath
        self.soname = soname
        self.system = system
    }
}

/// The `objects` table of an audit report with several files (JSON schema version 2): each
/// distinct closure object once, numbered from 0 in the order the report first meets them.
/// Given to an encoder as `userInfo[ClosureObjectTable.userInfoKey]`, closure objects are
/// written as references to it. Immutable, so encoders on several threads can share it.
public final class ClosureObjectTable: Sendable {
    public static let userInfoKey = CodingUserInfoKey(rawValue: "premain.closureObjectTable")!

    public let records: [ClosureObjectRecord]
    /// The first record of each path: a look-up hashes the path's bytes once, where a key of
    /// four `String`s hashed each by its normalized scalars.
    private let firstWithPath: [PathKey: Int]
    /// The next record with the same path as record `id`, in id order, or -1 (almost always):
    /// a chain from `firstWithPath`, with no array per path.
    private let nextWithPath: [Int]
    /// How the closure of each binary the table was made from is written, in order: worked out
    /// while the table is made, which looks every object up anyway.
    private let references: [ClosureReferences]

    /// How one closure is written in schema 2: `reference(for:)` of each of its objects and
    /// `id(ofPath:)` of each share of its `top`, in order.
    public struct ClosureReferences: Sendable {
        public var objects: [(id: Int, loader: Int?)?]
        public var top: [Int?]
    }

    /// A path compared and hashed by its UTF-8 bytes (`ByteKey`'s rule, kept here because the
    /// model imports nothing).
    private struct PathKey: Hashable {
        var text: String
        init(_ text: String) { self.text = text }
        static func == (lhs: PathKey, rhs: PathKey) -> Bool {
            let left = lhs.text.utf8
            let right = rhs.text.utf8
            guard left.count == right.count else { return false }
            let fast = left.withContiguousStorageIfAvailable { a in
                right.withContiguousStorageIfAvailable { b in
                    Self.equal(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b))
                }
            }
            if case let equal?? = fast { return equal }
            return left.elementsEqual(right)
        }
        /// Byte for byte, 8 at a time: `a` and `b` have the same count.
        private static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
            guard let left = a.baseAddress, let right = b.baseAddress, left != right else { return true }
            var offset = 0
            while offset + 8 <= a.count {
                guard
                    left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
            }
            while offset < a.count {
                guard
                    left.load(fromByteOffset: offset, as: UInt8.self)
                        == right.load(fromByteOffset: offset, as: UInt8.self)
                else { return false }
                offset += 1
            }
            return true
        }
        func hash(into hasher: inout Hasher) {
            let bytes = text.utf8
            if bytes.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
                Array(bytes).withUnsafeBytes { hasher.combine(bytes: $0) }
            }
        }
    }

    public init(_ binaries: [BinaryInventory]) {
        var records: [ClosureObjectRecord] = []
        var firstWithPath: [PathKey: Int] = [:]
        var nextWithPath: [Int] = []
        var references: [ClosureReferences] = []
        references.reserveCapacity(binaries.count)
        // Loaders and shares whose path is not an object's of the same closure: looked up once
        // every record is known (binary, position, and the object's own id).
        var loadersLeft: [(binary: Int, index: Int, own: Int)] = []
        var sharesLeft: [(binary: Int, index: Int)] = []
        // The first record of the path of each object of the closure at hand, and the path's
        // count of bytes.
        var heads: [Int] = []
        var lengths: [Int] = []
        for binary in binaries.indices {
            guard let closure = binaries[binary].closure else {
                references.append(ClosureReferences(objects: [], top: []))
                continue
            }
            heads.removeAll(keepingCapacity: true)
            lengths.removeAll(keepingCapacity: true)
            var own: [(id: Int, loader: Int?)?] = []
            own.reserveCapacity(closure.objects.count)
            var top: [Int?] = []
            top.reserveCapacity(closure.top.count)
            // Through the buffer, each object is read in place, not copied.
            closure.objects.withUnsafeBufferPointer { objects in
                for index in objects.indices {
                    let key = PathKey(objects[index].path)
                    lengths.append(key.text.utf8.count)
                    if let first = firstWithPath[key] {
                        heads.append(first)
                        // The same path: the same object unless its other fields differ.
                        var id = first
                        var last = first
                        while id >= 0, !Self.matchesBesidesPath(records[id], objects[index]) {
                            last = id
                            id = nextWithPath[id]
                        }
                        if id >= 0 {
                            own.append((id, nil))
                            continue
                        }
                        nextWithPath[last] = records.count
                    } else {
                        firstWithPath[key] = records.count
                        heads.append(records.count)
                    }
                    own.append((records.count, nil))
                    nextWithPath.append(-1)
                    records.append(
                        ClosureObjectRecord(
                            id: records.count, path: objects[index].path, realPath: objects[index].realPath,
                            soname: objects[index].soname, system: objects[index].system))
                }
                // A loader's path and a share's are most often an object's of the same closure
                // (the loader just before, one level up): its record's path, found by comparing
                // a few paths (most by their count alone) instead of hashing.
                for index in objects.indices where objects[index].depth != 1 {
                    guard let id = own[index]?.id else { continue }
                    if let loader = Self.nearbyLoader(of: index, in: objects, heads: heads, lengths: lengths) {
                        own[index] = (id, loader)
                    } else {
                        loadersLeft.append((binary, index, id))
                    }
                }
                for (index, share) in closure.top.enumerated() {
                    let wanted = PathKey(share.path)
                    let length = wanted.text.utf8.count
                    let found = objects.indices.prefix(64).first {
                        lengths[$0] == length && PathKey(objects[$0].path) == wanted
                    }
                    top.append(found.map { heads[$0] })
                    if found == nil { sharesLeft.append((binary, index)) }
                }
            }
            references.append(ClosureReferences(objects: own, top: top))
        }
        // The rest once every record is known, as `reference(for:)` and `id(ofPath:)` find them.
        for (binary, index, own) in loadersLeft {
            guard let neededBy = binaries[binary].closure?.objects[index].neededBy else { continue }
            references[binary].objects[index] = firstWithPath[PathKey(neededBy)].map { (own, $0) }
        }
        for (binary, index) in sharesLeft {
            guard let path = binaries[binary].closure?.top[index].path else { continue }
            references[binary].top[index] = firstWithPath[PathKey(path)]
        }
        self.records = records
        self.firstWithPath = firstWithPath
        self.nextWithPath = nextWithPath
        self.references = references
    }

    /// The record of the object that loaded `objects[index]`, when it is among the 32 objects one
    /// level up before it (compared by the count of bytes first); `nil` when it is not.
    private static func nearbyLoader(
        of index: Int, in objects: UnsafeBufferPointer<ClosureObject>, heads: [Int], lengths: [Int]
    ) -> Int? {
        let wanted = PathKey(objects[index].neededBy)
        let length = wanted.text.utf8.count
        var other = index - 1
        var compared = 0
        while other >= 0, compared < 32 {
            if objects[other].depth == objects[index].depth - 1 {
                if lengths[other] == length, PathKey(objects[other].path) == wanted { return heads[other] }
                compared += 1
            }
            other -= 1
        }
        return nil
    }

    /// `true` when `record`, whose path has `object.path`'s bytes (so is the same string),
    /// stands for `object` (its path, real path, soname and flag).
    private static func matchesBesidesPath(_ record: ClosureObjectRecord, _ object: ClosureObject) -> Bool {
        record.realPath == object.realPath && record.soname == object.soname && record.system == object.system
    }

    /// The id of the first record of `path`; `nil` when no closure object has that path.
    public func id(ofPath path: String) -> Int? {
        firstWithPath[PathKey(path)]
    }

    /// How `object` is written in schema 2: its record's id, and its loader's (`nil` when the
    /// program loaded it, at depth 1); `nil` when the table holds either not, and the object
    /// is written in full.
    public func reference(for object: ClosureObject) -> (id: Int, loader: Int?)? {
        guard let own = id(of: object) else { return nil }
        if object.depth == 1 { return (own, nil) }
        guard let loader = id(ofPath: object.neededBy) else { return nil }
        return (own, loader)
    }

    /// How the closure of `binaries[index]` is written, for the `binaries` the table was made
    /// from; `nil` when there is no such binary.
    public func references(ofBinary index: Int) -> ClosureReferences? {
        references.indices.contains(index) ? references[index] : nil
    }

    /// The id of `object`'s record; `nil` when the table does not hold it.
    public func id(of object: ClosureObject) -> Int? {
        var id = firstWithPath[PathKey(object.path)] ?? -1
        while id >= 0 {
            if Self.matchesBesidesPath(records[id], object) { return id }
            id = nextWithPath[id]
        }
        return nil
    }
}
