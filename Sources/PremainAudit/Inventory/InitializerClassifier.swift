import ELFKit
import PremainModel

/// Symbolizes static initializer entries and says what each one is.
public enum InitializerClassifier {
    /// Functions every toolchain adds to every object; listed, but left out of summaries.
    public static let toolchainNames: Set<String> = [
        "frame_dummy", "register_tm_clones", "__do_global_ctors_aux", "_init", "__libc_csu_init",
        "call_weak_fn", "__libc_init_first", "init_cacheinfo", "_GLOBAL__sub_I_00099_0___libc_csu_init",
    ]

    /// The bytes of each of `toolchainNames`.
    private static let toolchainNameBytes: [[UInt8]] = toolchainNames.map { Array($0.utf8) }

    /// `toolchainNames.contains(symbol)`, by bytes: a string equal to one of these ASCII names
    /// (`String`'s `==` is canonical equivalence) has its bytes, as none holds "K", ";" or "`",
    /// the only ASCII characters with another spelling. The length first, then the bytes.
    static func isToolchainName(_ symbol: String) -> Bool {
        let length = symbol.utf8.count
        let equal = symbol.utf8.withContiguousStorageIfAvailable { bytes in
            toolchainNameBytes.contains { name in
                name.count == length && name.elementsEqual(bytes)
            }
        }
        return equal ?? toolchainNames.contains(symbol)
    }

    /// `debug`: the file's debug file, whose `.symtab` names what a stripped file's own tables
    /// do not (`nil`: no debug file is read).
    static func census(_ file: ELFFile, demangle: Bool, debug: DebugLookup? = nil) -> InitializerCensus {
        var census = InitializerCensus()
        let entries = file.initializerEntries
        census.entries.reserveCapacity(entries.count)
        var names: [UInt64: String] = [:]
        if file.type != 1 {
            var targets = Set<UInt64>(minimumCapacity: entries.count)
            for index in entries.indices { if let target = entries[index].target { targets.insert(target) } }
            names = file.symbolNames(at: targets)
            if let debug, names.count < targets.count {
                let more = debugSymbolNames(file, at: targets.subtracting(names.keys), debug: debug)
                if !more.isEmpty { names.merge(more) { own, _ in own } }
            }
        }
        for entry in entries {
            switch entry.source {
            case .initArray: census.initArray += 1
            case .preinitArray: census.preinitArray += 1
            case .ctors: census.ctors += 1
            case .dtInit: census.dtInit = true
            }
            // In a relocatable object addresses are section offsets, shared by every section:
            // the relocation's symbol names the function.
            var symbol =
                file.type == 1
                ? entry.relocationSymbol
                : entry.target.flatMap { names[$0] } ?? entry.relocationSymbol
            // Stripped files: DT_INIT at the start of .init is crti's _init.
            if symbol == nil, entry.source == .dtInit, let section = file.section(named: ".init"),
                section.address == entry.target
            {
                symbol = "_init"
            }
            let info = classify(symbol: symbol, entry: entry, demangle: demangle)
            if info.toolchain { census.toolchain += 1 }
            census.entries.append(consume info)
        }
        census.total = entries.count
        return census
    }

    /// Names of `addresses` from the `.symtab` of a stripped file's debug file (distributions'
    /// debug packages keep it there), when the debug file has the same build ID; `[:]` for a
    /// file that has its own `.symtab`, has no build ID or no debug file. Naming `frame_dummy`
    /// and `_init` marks them as the toolchain's, so no DWARF is opened for them.
    static func debugSymbolNames(_ file: ELFFile, at addresses: Set<UInt64>, debug: DebugLookup) -> [UInt64: String] {
        guard !addresses.isEmpty, !file.hasSymbolTable, let id = file.buildID,
            debug.path != file.path, let debug = debug.debugFile, debug.buildID == id, debug.hasSymbolTable,
            debug.machine == file.machine
        else { return [:] }
        return debug.symbolNames(at: addresses)
    }

    /// Sets the DWARF line of every entry that is not the toolchain's, from the file's own
    /// DWARF or its debug file. Leaves `location` `nil` when no DWARF is found or it has no
    /// line for the address; opens no DWARF when every entry is the toolchain's.
    static func locate(_ census: inout InitializerCensus, debug: DebugLookup) {
        var wanted: [(index: Int, address: UInt64)] = []
        for index in census.entries.indices where !census.entries[index].toolchain {
            guard let text = census.entries[index].address, let address = hexValue(text), address != 0 else { continue }
            wanted.append((index, address))
        }
        let locations = debug.sourceLocations(of: wanted.map(\.address))
        for (index, address) in wanted {
            guard let location = locations[address], location.line > 0 else { continue }
            census.entries[index].location = location
        }
    }

    /// The translation unit named by a GCC/Clang `_GLOBAL__sub_I_[prio_]<file>` function, or
    /// `nil` for other names.
    public static func translationUnit(of symbol: String) -> String? {
        guard symbol.utf8HasPrefix("_GLOBAL__sub_I") else { return nil }
        // GCC 12's prioritized form: _GLOBAL__sub_I.00101_<name>.
        if symbol.utf8HasPrefix("_GLOBAL__sub_I."), symbol.hasPrefix("_GLOBAL__sub_I."), priority(of: symbol) != nil {
            let rest = symbol.utf8.dropFirst("_GLOBAL__sub_I.00101_".utf8.count)
            return rest.isEmpty ? nil : String(decoding: rest, as: UTF8.self)
        }
        let prefix = "_GLOBAL__sub_I_".utf8
        guard symbol.utf8HasPrefix("_GLOBAL__sub_I_") else { return nil }
        if let unit = symbol.utf8.withContiguousStorageIfAvailable({ unitName(in: $0[prefix.count...]) }) {
            return unit
        }
        return unitName(in: Array(symbol.utf8.dropFirst(prefix.count))[...])
    }

    /// The priority a C++ initializer's symbol carries (`init_priority(101)`): GCC's
    /// `_GLOBAL__sub_I.00101_early` and `_GLOBAL__sub_I_00101_0_file.cpp`, Clang's
    /// `_GLOBAL__I_000101`; `nil` for other names. (`__attribute__((constructor(N)))` leaves no
    /// trace in a linked file: the linker sorts `.init_array.N` sections and drops their names.)
    ///
    /// Read from the name's bytes (a `Character` is a byte in the ASCII names compilers write);
    /// a name that is not ASCII is compared by `Character`s.
    public static func priority(of symbol: String) -> Int? {
        guard symbol.utf8HasPrefix("_GLOBAL__") else { return nil }
        let fast = symbol.utf8.withContiguousStorageIfAvailable { bytes -> Int?? in
            var all: UInt8 = 0
            for byte in bytes { all |= byte }
            return all < 0x80 ? .some(asciiPriority(of: bytes)) : .none
        }
        if case let answer?? = fast { return answer }
        func digits(_ text: Substring, count: Int) -> Int? {
            guard text.utf8.count >= count, text.utf8.prefix(count).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                return nil
            }
            return Int(text.prefix(count))
        }
        for (prefix, count, separator) in [
            ("_GLOBAL__sub_I.", 5, "_"), ("_GLOBAL__sub_I_", 5, "_"), ("_GLOBAL__I_", 6, ""),
        ] where symbol.hasPrefix(prefix) {
            let rest = symbol.dropFirst(prefix.count)
            guard let value = digits(rest, count: count) else { continue }
            let after = rest.dropFirst(count)
            if separator.isEmpty ? after.isEmpty : after.hasPrefix(separator) { return value }
        }
        return nil
    }

    /// `priority(of:)` of an ASCII name's bytes, where each byte is a `Character`.
    private static func asciiPriority(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        /// The `count` digits after `prefix`, when `separator` (`nil`: the end) follows them.
        func value(after prefix: StaticString, digits count: Int, then separator: UInt8?) -> Int? {
            let start = prefix.utf8CodeUnitCount
            guard bytes.count >= start + count,
                bytes.prefix(start).elementsEqual(UnsafeBufferPointer(start: prefix.utf8Start, count: start))
            else { return nil }
            var value = 0
            for byte in bytes[start..<start + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            let end = start + count
            guard let separator else { return end == bytes.count ? value : nil }
            return end < bytes.count && bytes[end] == separator ? value : nil
        }
        return value(after: "_GLOBAL__sub_I.", digits: 5, then: UInt8(ascii: "_"))
            ?? value(after: "_GLOBAL__sub_I_", digits: 5, then: UInt8(ascii: "_"))
            ?? value(after: "_GLOBAL__I_", digits: 6, then: nil)
    }

    /// The file name after `_GLOBAL__sub_I_` (`rest`), past a priority prefix
    /// (`00101_0_`: five digits, digits); `nil` when empty.
    private static func unitName<Bytes: RandomAccessCollection<UInt8>>(in rest: Bytes) -> String?
    where Bytes.SubSequence: RandomAccessCollection<UInt8> {
        // Priority form: _GLOBAL__sub_I_00101_0_file.cpp (five digits, digits, then the file).
        func digits(_ part: Bytes.SubSequence) -> Bool { part.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        var unit = rest[...]
        if let first = rest.firstIndex(of: 0x5f), rest.distance(from: rest.startIndex, to: first) == 5,
            digits(rest[..<first]),
            let second = rest[rest.index(after: first)...].firstIndex(of: 0x5f),
            digits(rest[rest.index(after: first)..<second])
        {
            unit = rest[rest.index(after: second)...]
        }
        return unit.isEmpty ? nil : String(decoding: unit, as: UTF8.self)
    }

    static func classify(symbol: String?, entry: ELFInitializerEntry, demangle: Bool) -> InitializerInfo {
        var kind = InitializerInfo.Kind.unknown
        var unit: String?
        var toolchain = false
        if let symbol {
            if isToolchainName(symbol) {
                kind = .toolchain
                toolchain = true
            } else if let tu = translationUnit(of: symbol) {
                kind = .cxxTranslationUnit
                unit = tu
            } else if symbol.utf8HasPrefix("_GLOBAL__I_"), symbol.hasPrefix("_GLOBAL__I_") {
                kind = .cxxTranslationUnit  // Clang's per-priority initializer: no name in it
            } else if Demangler.isSwift(symbol) || symbol.hasPrefix("swift_")
                || symbol.hasPrefix("_ZL23swift_image_constructor")
            {
                kind = .swift
            } else {
                kind = .constructorFunction
            }
        }
        var info = InitializerInfo(
            source: entry.source, index: entry.index, address: entry.target.map(hex),
            resolution: entry.resolution, symbol: symbol,
            demangled: demangle ? symbol.flatMap(Demangler.demangle) : nil,
            translationUnit: unit, kind: kind, toolchain: toolchain)
        info.priority = symbol.flatMap(priority(of:))
        if kind == .cxxTranslationUnit {
            info.name = TranslationUnitName.name(
                sourceFile: nil, keyedName: unit, demangle: demangle ? Demangler.demangle : { _ in nil })
        }
        return info
    }
}
