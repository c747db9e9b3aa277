import ELFKit
import LosslessText
import PremainModel

/// What `InventoryBuilder` collects beyond the counts.
public struct InventoryOptions: Sendable, Equatable {
    /// Full lists of exported and imported symbol names.
    public var symbolLists: Bool
    /// Demangle initializer and Swift suspect names (costs time on huge files).
    public var demangle: Bool
    /// The source line (DWARF, through `debugLocator`) of each initializer that is not the
    /// toolchain's. Costs nothing for objects without DWARF or a debug file.
    public var sourceLines: Bool
    /// Where separate debug files are looked for.
    public var debugLocator: DebugFileLocator

    public init(
        symbolLists: Bool = false, demangle: Bool = true, sourceLines: Bool = true,
        debugLocator: DebugFileLocator = DebugFileLocator()
    ) {
        self.symbolLists = symbolLists
        self.demangle = demangle
        self.sourceLines = sourceLines
        self.debugLocator = debugLocator
    }
}

/// Builds a `BinaryInventory` from an ELF file: the static audit of one file.
public enum InventoryBuilder {
    /// Opens and audits `path`. Throws `ELFOpenError` when the file cannot be read as ELF at
    /// all, or changed while it was read; a file with broken tables is still audited and
    /// carries `diagnostics`.
    public static func audit(path: String, options: InventoryOptions = .init()) throws(ELFOpenError) -> BinaryInventory
    {
        let file = try ELFFile(path: path)
        let inventory = audit(file, options: options)
        if file.changedSinceOpen { throw .changedWhileRead }
        return inventory
    }

    /// Audits an opened file.
    public static func audit(_ file: ELFFile, options: InventoryOptions = .init()) -> BinaryInventory {
        auditWithCost(file, options: options).inventory
    }

    /// Audits an opened file, and returns with it what the file costs as part of a load
    /// closure (counted in the same passes).
    /// `swiftCensus`: the Swift census counted elsewhere (another handle of the file, on another
    /// core), asked for when this audit comes to it; `nil` to count it here.
    public static func auditWithCost(
        _ file: ELFFile, options: InventoryOptions = .init(),
        swiftCensus counted: (() -> SwiftCensus?)? = nil
    )
        -> (inventory: BinaryInventory, cost: ObjectCost)
    {
        let header = BinaryInventory.Header(
            elfClass: file.elfClass, endianness: file.endianness,
            machine: file.machine.displayName, machineName: file.machine.description,
            kind: file.objectKind, interpreter: file.interpreter, soname: file.soname,
            buildID: file.buildID, stripped: !file.hasSymbolTable, debugLink: file.debugLink?.name,
            fileSize: file.fileSize)
        let dynamic = BinaryInventory.DynamicInfo(
            rpath: file.rpath, runpath: file.runpath, bindNow: file.bindNow, gnuHash: file.hasGNUHash,
            sysvHash: file.hasSysVHash, textRel: file.textRel, symbolVersioning: file.hasSymbolVersioning,
            noDefaultLib: file.noDefaultLib)
        let needed = file.neededLibraries
        let (relocations, counts) = relocationCensus(file)
        let symbols = symbolCensus(file, lists: options.symbolLists)
        let cost = ObjectCost(file, relocations: relocations, counts: counts, exported: symbols.exported)
        // The large tables of a large file (relocations, then .symtab and .strtab) are each
        // read once: their pages are given back between passes, so a 200 MB library peaks at
        // its largest table. Small files keep theirs (giving back costs page faults).
        releasePagesIfLarge(file)
        // One debug file search and one DWARF read for the names and lines below.
        let debug = options.sourceLines ? DebugLookup(file, locator: options.debugLocator) : nil
        var initializers = InitializerClassifier.census(file, demangle: options.demangle, debug: debug)
        if let debug {
            InitializerClassifier.locate(&initializers, debug: debug)
            TranslationUnits.describe(&initializers, debug: debug, demangle: options.demangle)
        }
        releasePagesIfLarge(file)
        var swift: SwiftCensus?
        if let counted {
            swift = counted()
            // What counting it here would have noted about the file's .symtab, in the same place.
            if swift != nil { _ = file.staticSymbols }
        } else {
            swift = swiftCensus(file, demangle: options.demangle)
            releasePagesIfLarge(file)
        }
        if let debug, var census = swift {
            SwiftSuspects.locate(&census, debug: debug)
            swift = census
        }
        let sizes = sizeCensus(file)
        let toolchain = ToolchainDetector.detect(file, needed: needed)
        let inventory = BinaryInventory(
            path: file.path, header: header, needed: needed, dynamic: dynamic, relocations: relocations,
            symbols: symbols, initializers: initializers, swift: swift, sizes: sizes,
            diagnostics: file.diagnostics.map(\.description), toolchain: toolchain)
        return (inventory, cost)
    }

    /// Gives `file`'s mapped pages back when it is at least 32 MB (`ELFFile.releasePages`);
    /// smaller files keep them, as giving back costs page faults.
    static func releasePagesIfLarge(_ file: ELFFile) {
        if file.fileSize >= 32 << 20 { file.releasePages() }
    }

    /// The relocations by class with the per-table list, and the class counts.
    static func relocationCensus(_ file: ELFFile) -> (RelocationCensus, RelocationClassCounts) {
        var census = RelocationCensus()
        var counts = RelocationClassCounts()
        for table in file.dynamicRelocationTables {
            census.tables.append(.init(name: table.name, format: table.format, entries: table.entryCount))
            counts.add(census.count(table, of: file))
        }
        return (census, counts)
    }

    static func symbolCensus(_ file: ELFFile, lists: Bool) -> SymbolCensus {
        var census = SymbolCensus()
        guard let table = file.dynamicSymbols else { return census }
        guard lists else {
            // Counts only: a raw scan (every library of every closure is counted).
            let (imported, exported) = table.importExportCounts()
            for kind in 0..<16 {
                census.imported += imported[kind]
                census.importedByType.add(ELFSymbol.Kind(rawValue: UInt8(kind)), count: imported[kind])
                census.exported += exported[kind]
                census.exportedByType.add(ELFSymbol.Kind(rawValue: UInt8(kind)), count: exported[kind])
            }
            return census
        }
        let versions = lists ? file.symbolVersions : nil
        var exportedNames: [String] = []
        var importedNames: [String] = []
        table.forEach { symbol in
            guard symbol.index > 0 else { return true }
            if !symbol.isDefined {
                census.imported += 1
                census.importedByType.add(symbol.kind)
                if lists { importedNames.append(label(table, symbol, versions)) }
                return true
            }
            switch symbol.binding {
            case .global, .weak, .gnuUnique: break
            default: return true
            }
            guard symbol.visibility == 0 || symbol.visibility == 3 else { return true }
            guard symbol.kind != .section, symbol.kind != .file else { return true }
            census.exported += 1
            census.exportedByType.add(symbol.kind)
            if lists { exportedNames.append(label(table, symbol, versions)) }
            return true
        }
        if lists {
            census.exportedNames = exportedNames
            census.importedNames = importedNames
        }
        return census
    }

    private static func label(_ table: ELFSymbolTable, _ symbol: ELFSymbol, _ versions: ELFSymbolVersions?) -> String {
        let name = table.name(of: symbol) ?? "<bad name offset \(symbol.nameOffset)>"
        guard let version = versions?[symbol.index] else { return name }
        let separator = symbol.isDefined && !version.hidden ? "@@" : "@"
        return name + separator + version.name
    }

    static func swiftCensus(_ file: ELFFile, demangle: Bool) -> SwiftCensus? {
        var metadata: [String: UInt64] = [:]
        // By index: a `for` over the sections copies each one (its name retained and released).
        let sections = file.sections
        for index in sections.indices where SwiftSuspects.isMetadataSection(sections[index].name) {
            metadata[sections[index].name, default: 0] += sections[index].size
        }
        guard !metadata.isEmpty else { return nil }
        var lazyGlobals: [SwiftSuspect] = []
        var defaultArguments: [SwiftSuspect] = []
        if let table = file.staticSymbols {
            // Swift manglings start "$s", "$S", "$e", "_$s" or "_T0": C and C++ names are
            // rejected by their first bytes in a raw scan of the table. The scan goes by chunks
            // of 64Ki symbols, and the pages read are given back after each (`releasePages`),
            // its hits named first: liblldb's 30 MB of names never sit in memory at once.
            let prefixes = [[UInt8(ascii: "$")], Array("_$".utf8), Array("_T".utf8)]
            let chunk = 1 << 16
            for start in stride(from: 0, to: table.count, by: chunk) {
                let hits = table.definedFunctionIndices(
                    namePrefixes: prefixes, within: start..<min(start + chunk, table.count))
                for index in hits {
                    // The name's last byte first; the entry is decoded for the few kept.
                    guard let bytes = table.nameBytes(ofEntry: index), bytes.count > 4,
                        let last = bytes.last, last == UInt8(ascii: "Z") || last == UInt8(ascii: "_"),
                        let symbol = table[index]
                    else { continue }
                    let name = String(decoding: bytes, as: UTF8.self)
                    guard let kind = SwiftSuspects.kind(of: name) else { continue }
                    let suspect = SwiftSuspect(
                        symbol: name, demangled: demangle ? Demangler.demangle(name) : nil,
                        address: hex(symbol.value), size: symbol.size)
                    switch kind {
                    case .lazyGlobal: lazyGlobals.append(suspect)
                    case .defaultArgument: defaultArguments.append(suspect)
                    }
                }
                if table.count > chunk { releasePagesIfLarge(file) }
            }
        }
        return SwiftCensus(lazyGlobals: lazyGlobals, defaultArguments: defaultArguments, metadataSections: metadata)
    }

    /// Sizes by allocated section: code, read-only data, writable data outside and inside
    /// RELRO, zero-filled memory; by `PT_LOAD` segment when the file has no sections.
    static func sizeCensus(_ file: ELFFile) -> SizeCensus {
        var sizes = SizeCensus(file: file.fileSize)
        let relro = file.segments.filter { $0.type == ELFSegment.gnuRelro }
        func inRelro(_ section: ELFSection) -> Bool {
            relro.contains {
                section.address >= $0.virtualAddress && section.address - $0.virtualAddress < $0.memorySize
            }
        }
        let allocated = file.sections.filter { $0.isAllocated && $0.size > 0 }
        guard !allocated.isEmpty else { return segmentSizes(file, relro: relro, into: sizes) }
        sizes.basis = .sections
        for section in allocated {
            let flags = section.flags
            if section.type == .nobits {
                // lld's .relro_padding only rounds RELRO up to a page; .tbss is a template.
                guard flags & ELFSection.flagTLS == 0, section.name != ".relro_padding" else { continue }
                if inRelro(section) { sizes.relro &+= section.size } else { sizes.bss &+= section.size }
            } else if flags & ELFSection.flagExec != 0 {
                sizes.text &+= section.size
            } else if flags & ELFSection.flagWrite == 0 {
                sizes.rodata &+= section.size
            } else if inRelro(section) {
                sizes.relro &+= section.size
            } else {
                sizes.data &+= section.size
                if section.name == ".rodata" || section.name.hasPrefix(".rodata.") {
                    sizes.writableRodata = (sizes.writableRodata ?? 0) &+ section.size
                }
            }
        }
        return sizes
    }

    /// The segment-based figures for files without section headers: RELRO is taken out of the
    /// writable segment's file bytes.
    static func segmentSizes(_ file: ELFFile, relro: [ELFSegment], into start: SizeCensus) -> SizeCensus {
        var sizes = start
        sizes.basis = .segments
        for segment in file.segments where segment.type == ELFSegment.load {
            if segment.flags & ELFSegment.flagExecute != 0 {
                sizes.text &+= segment.fileSize
            } else if segment.flags & ELFSegment.flagWrite != 0 {
                let protected = relro.filter {
                    $0.virtualAddress >= segment.virtualAddress
                        && $0.virtualAddress - segment.virtualAddress < segment.fileSize
                }
                .reduce(UInt64(0)) { $0 &+ $1.fileSize }
                sizes.relro &+= protected
                sizes.data &+= segment.fileSize - min(protected, segment.fileSize)
                if segment.memorySize > segment.fileSize { sizes.bss &+= segment.memorySize - segment.fileSize }
            } else {
                sizes.rodata &+= segment.fileSize
            }
        }
        return sizes
    }
}

/// The value `hex` wrote: `text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : nil`,
/// read from the bytes when they are "0x" and 1 to 16 hex digits (as `hex` writes them; a
/// few instructions a digit where the `Substring` and radix parse cost hundreds), else that
/// expression itself.
func hexValue(_ text: String) -> UInt64? {
    let fast = text.utf8.withContiguousStorageIfAvailable { bytes -> UInt64? in
        guard bytes.count > 2, bytes.count <= 18, bytes[0] == UInt8(ascii: "0"), bytes[1] == UInt8(ascii: "x")
        else { return nil }
        return HexDigits.value(bytes[2...])
    }
    if case let value?? = fast { return value }
    return text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : nil
}

/// `0x`-prefixed lowercase hex, as `"0x" + String(value, radix: 16)` writes it, in one buffer.
func hex(_ value: UInt64) -> String {
    let digits = max(1, (64 - value.leadingZeroBitCount + 3) / 4)
    return String(unsafeUninitializedCapacity: digits + 2) { buffer in
        buffer[0] = UInt8(ascii: "0")
        buffer[1] = UInt8(ascii: "x")
        var rest = value
        for position in (2..<digits + 2).reversed() {
            let nibble = UInt8(truncatingIfNeeded: rest & 0xf)
            buffer[position] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
            rest >>= 4
        }
        return digits + 2
    }
}
