import ELFKit
import PremainModel

/// Binds each object's imports to the object that would define them, to find `DT_NEEDED`
/// entries nothing binds to: the static equivalent of `ldd -u` (which `ld.so` answers by
/// marking every object a look-up lands in as used).
///
/// Imports are the undefined `.dynsym` entries (global or weak) plus the symbols of `COPY`
/// relocations (defined in the executable, looked up elsewhere). Each is looked up in the
/// global scope, in load order, skipping the importer: the first object that defines the
/// name (not local, not hidden) with a matching version wins. A versioned import (`foo@V`)
/// binds only to a definition of version `V`, or to an unversioned definition in an object
/// without version definitions; an unversioned import takes any default (non-`@`) version.
struct SymbolBinder {
    let walk: ClosureWalk

    /// The program's `DT_NEEDED` names that provide none of its imports, in `DT_NEEDED` order;
    /// `[]` when every entry is used. Missing libraries are not listed (they are missing).
    func unusedNeededOfProgram() -> [String] {
        let needed = walk.programNeeded
        guard !needed.isEmpty else { return [] }
        let file = walk.program
        guard let table = file.dynamicSymbols else { return needed.compactMap { $0.object == nil ? nil : $0.name } }
        // Direct dependencies nothing has bound to yet, each with its symbols (a dependency
        // that cannot be read is never bound). Only an import one of them defines can change
        // the answer, so every other import is passed over after a look-up in each of them
        // (usually a bloom-filter miss), without walking the whole load order.
        var unbound: [(index: Int, provider: SymbolProvider?)] = []
        for case let object? in needed.map(\.object) where !unbound.contains(where: { $0.index == object }) {
            unbound.append((object, provider(object)))
        }
        // The providers of the rest of the load order, opened when a look-up first reaches them.
        var opened = [SymbolProvider??](repeating: nil, count: walk.objects.count)
        for entry in unbound { opened[entry.index] = .some(entry.provider) }
        var used = [Bool](repeating: false, count: walk.objects.count)
        var going = !unbound.isEmpty
        // Binds one import; `false` once every direct dependency is bound (nothing left to learn).
        func bind(_ symbolIndex: Int) -> Bool {
            guard let bytes = table.nameBytes(ofEntry: symbolIndex), !bytes.isEmpty else { return true }
            let name = ELFSymbolLookup.HashedName(bytes)
            // The import's version, read when a definition of its name is first found (most
            // look-ups end at a bloom filter), from its one versym word.
            var wanted: String??
            func defines(_ found: SymbolProvider) -> Bool {
                found.lookup.firstDefinition(of: name) { candidate in
                    if wanted == nil { wanted = .some(file.symbolVersionName(symbolIndex)) }
                    return accepts(candidate, in: found, wanted: wanted ?? nil)
                } != nil
            }
            guard unbound.contains(where: { $0.provider.map(defines) ?? false }) else { return true }
            for index in walk.loadOrder where index != 0 {
                if opened[index] == nil { opened[index] = .some(provider(index)) }
                guard let found = opened[index] ?? nil, defines(found) else { continue }
                used[index] = true
                unbound.removeAll { $0.index == index }
                break
            }
            return !unbound.isEmpty
        }
        // Imports in the order the table lists them, then the symbols of COPY relocations; the
        // scan stops as soon as every direct dependency is bound.
        table.forEachUndefinedGlobal { symbolIndex in
            going = bind(symbolIndex)
            return going
        }
        if going {
            for symbolIndex in copyRelocationSymbols(file) where !bind(symbolIndex) { break }
        }
        return needed.filter { entry in entry.object.map { !used[$0] } ?? false }.map(\.name)
    }

    /// The symbol look-up of closure object `index`; `nil` when it cannot be read.
    private func provider(_ index: Int) -> SymbolProvider? {
        let object = walk.objects[index]
        let store = walk.resolver.store
        return object.placed.map { store.provider(object.path, identity: $0.identity) } ?? store.provider(object.path)
    }

    /// `check_match` of glibc's `elf/dl-lookup.c`, reduced to what decides binding.
    /// `provider` is passed whole (one reference) rather than its look-up and versions: the
    /// versions are a value of several arrays, each retained and released per call.
    /// `wanted`: the name of the import's version, `nil` for an unversioned import.
    private func accepts(_ index: Int, in provider: SymbolProvider, wanted: String?) -> Bool {
        guard let symbol = provider.lookup.symbols[index], symbol.binding != .local, symbol.binding != nil,
            symbol.visibility != 1, symbol.visibility != 2
        else { return false }
        switch symbol.kind {
        case .none?, .object?, .function?, .common?, .tls?, .gnuIFunc?: break
        default: return false
        }
        let defined = provider.versions?[index]
        guard let wanted else {
            // Unversioned request: hidden (foo@V) definitions are never taken.
            return !(defined?.hidden ?? false)
        }
        guard let versions = provider.versions else { return true }
        if let defined { return defined.name == wanted }
        return versions.defined.isEmpty
    }

    /// Symbol indices of `COPY` relocations.
    private func copyRelocationSymbols(_ file: ELFFile) -> [Int] {
        guard file.objectKind != .sharedLibrary else { return [] }
        var indices: [Int] = []
        let machine = file.machine
        for table in file.dynamicRelocationTables where table.format != .relr {
            table.forEachEntry { _, type, symbolIndex, _ in
                if symbolIndex != 0, machine.relocationClass(type) == .copy { indices.append(Int(symbolIndex)) }
            }
        }
        return indices
    }
}

/// A library's symbol tables, kept open for the symbol binding of many programs.
///
/// `@unchecked Sendable`: after construction only reads of the mapped file happen (symbol
/// entries, names and hash tables through `ELFSymbolLookup`), which are safe from any thread.
/// `file` is kept only to keep the mapping alive: its lazily read tables (`dynamicSymbols`,
/// `symbolVersions`, ...) fill in on first use and must not be asked for from here.
final class SymbolProvider: @unchecked Sendable {
    let file: ELFFile
    let lookup: ELFSymbolLookup
    let versions: ELFSymbolVersions?

    init(file: ELFFile, lookup: ELFSymbolLookup, versions: ELFSymbolVersions?) {
        self.file = file
        self.lookup = lookup
        self.versions = versions
    }
}
