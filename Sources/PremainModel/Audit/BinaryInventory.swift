import ELFValues

/// Everything `premain audit` knows about one ELF file without running it. Codable: the JSON
/// report's `binaries[]` entries. Keys documented as contract in README.md keep their meaning.
public struct BinaryInventory: Codable, JSONKeyed, Sendable, Equatable {
    public var path: String
    public var header: Header
    /// `DT_NEEDED` names in order; `[]` when the file has no dynamic section.
    public var needed: [String]
    public var dynamic: DynamicInfo
    public var relocations: RelocationCensus
    public var symbols: SymbolCensus
    public var initializers: InitializerCensus
    /// Swift start-up suspects; `nil` for files without Swift symbols or metadata.
    public var swift: SwiftCensus?
    public var sizes: SizeCensus
    /// Problems with tables that were skipped; `[]` for a sound file.
    public var diagnostics: [String]
    /// The load closure (`premain audit --closure`, the default); `nil` when not resolved or
    /// for a file without dynamic linking.
    public var closure: DependencyClosure? = nil
    /// Why `closure` is absent although closures were resolved (a static executable); `nil`
    /// otherwise.
    public var closureSkipped: String? = nil
    /// `DT_NEEDED` entries that provide none of the file's imports (`ldd -u`); `nil` when the
    /// closure was not resolved.
    public var unusedNeeded: [String]? = nil
    /// The linker and languages that made the file; `nil` in reports written before premain
    /// recorded them.
    public var toolchain: BuildToolchain? = nil

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case closure, closureSkipped, diagnostics, dynamic, header, initializers, needed, path, relocations
        case sizes, swift, symbols, toolchain, unusedNeeded
    }

    public struct Header: Codable, JSONKeyed, Sendable, Equatable {
        public var elfClass: ELFClass
        public var endianness: ELFEndianness
        /// Readable machine name ("x86-64") and its C name ("EM_X86_64").
        public var machine: String
        public var machineName: String
        public var kind: ELFObjectKind
        public var interpreter: String?
        public var soname: String?
        public var buildID: String?
        /// `true` when the file has no `.symtab`.
        public var stripped: Bool
        public var debugLink: String?
        public var fileSize: UInt64

        /// The JSON keys, in the JSON's order (`JSONKeyed`).
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case buildID, debugLink, elfClass, endianness, fileSize, interpreter, kind, machine
            case machineName, soname, stripped
        }

        public init(
            elfClass: ELFClass, endianness: ELFEndianness, machine: String, machineName: String, kind: ELFObjectKind,
            interpreter: String? = nil, soname: String? = nil, buildID: String? = nil, stripped: Bool,
            debugLink: String? = nil, fileSize: UInt64
        ) {
            self.elfClass = elfClass
            self.endianness = endianness
            self.machine = machine
            self.machineName = machineName
            self.kind = kind
            self.interpreter = interpreter
            self.soname = soname
            self.buildID = buildID
            self.stripped = stripped
            self.debugLink = debugLink
            self.fileSize = fileSize
        }
    }

    public struct DynamicInfo: Codable, JSONKeyed, Sendable, Equatable {
        public var rpath: [String]
        public var runpath: [String]
        public var bindNow: Bool
        public var gnuHash: Bool
        public var sysvHash: Bool
        public var textRel: Bool
        public var symbolVersioning: Bool
        /// `DF_1_NODEFLIB`.
        public var noDefaultLib: Bool

        /// The JSON keys, in the JSON's order (`JSONKeyed`).
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case bindNow, gnuHash, noDefaultLib, rpath, runpath, symbolVersioning, sysvHash, textRel
        }

        public init(
            rpath: [String], runpath: [String], bindNow: Bool, gnuHash: Bool, sysvHash: Bool, textRel: Bool,
            symbolVersioning: Bool, noDefaultLib: Bool
        ) {
            self.rpath = rpath
            self.runpath = runpath
            self.bindNow = bindNow
            self.gnuHash = gnuHash
            self.sysvHash = sysvHash
            self.textRel = textRel
            self.symbolVersioning = symbolVersioning
            self.noDefaultLib = noDefaultLib
        }
    }

    public init(
        path: String, header: Header, needed: [String], dynamic: DynamicInfo, relocations: RelocationCensus,
        symbols: SymbolCensus, initializers: InitializerCensus, swift: SwiftCensus? = nil, sizes: SizeCensus,
        diagnostics: [String], closure: DependencyClosure? = nil, unusedNeeded: [String]? = nil,
        toolchain: BuildToolchain? = nil
    ) {
        self.path = path
        self.header = header
        self.needed = needed
        self.dynamic = dynamic
        self.relocations = relocations
        self.symbols = symbols
        self.initializers = initializers
        self.swift = swift
        self.sizes = sizes
        self.diagnostics = diagnostics
        self.closure = closure
        self.unusedNeeded = unusedNeeded
        self.toolchain = toolchain
    }
}

/// Dynamic relocations the loader applies, by class.
public struct RelocationCensus: Codable, JSONKeyed, Sendable, Equatable {
    /// `R_*_RELATIVE` entries plus every address DT_RELR encodes.
    public var relative: Int = 0
    /// Every other relocation with a symbol look-up (`GLOB_DAT`, `R_*_64`, ...).
    public var symbolic: Int = 0
    /// `JUMP_SLOT`.
    public var plt: Int = 0
    public var copy: Int = 0
    public var irelative: Int = 0
    public var tls: Int = 0
    /// relative + symbolic + plt + copy + irelative + tls.
    public var total: Int = 0
    /// `R_*_NONE` entries, not in `total`.
    public var none: Int = 0
    /// How many of `relative` come from RELR.
    public var relrAddresses: Int = 0
    /// Raw entries per relocation section.
    public var tables: [Table] = []

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case copy, irelative, none, plt, relative, relrAddresses, symbolic, tables, tls, total
    }

    public struct Table: Codable, JSONKeyed, Sendable, Equatable {
        public var name: String
        public var format: ELFRelocationFormat
        /// Entries as stored: relocations, or words for RELR.
        public var entries: Int

        /// The JSON keys, in the JSON's order (`JSONKeyed`).
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case entries, format, name
        }

        public init(name: String, format: ELFRelocationFormat, entries: Int) {
            self.name = name
            self.format = format
            self.entries = entries
        }
    }

    public init() {}

    /// Adds another census's class counts (not its tables): for closure totals.
    public mutating func add(_ other: RelocationCensus) {
        relative += other.relative
        symbolic += other.symbolic
        plt += other.plt
        copy += other.copy
        irelative += other.irelative
        tls += other.tls
        total += other.total
        none += other.none
        relrAddresses += other.relrAddresses
    }
}

/// Dynamic symbols: what the file offers to and asks of other objects.
public struct SymbolCensus: Codable, JSONKeyed, Sendable, Equatable {
    /// Defined `.dynsym` entries (but index 0) binding GLOBAL, WEAK or GNU_UNIQUE with DEFAULT
    /// or PROTECTED visibility, not of type SECTION or FILE.
    public var exported: Int = 0
    /// Undefined `.dynsym` entries but index 0.
    public var imported: Int = 0
    public var exportedByType = ByType()
    public var importedByType = ByType()
    /// Full lists, only with `--symbols`.
    public var exportedNames: [String]?
    public var importedNames: [String]?

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case exported, exportedByType, exportedNames, imported, importedByType, importedNames
    }

    public struct ByType: Codable, JSONKeyed, Sendable, Equatable {
        public var function = 0
        public var object = 0
        public var tls = 0
        public var ifunc = 0
        public var other = 0

        /// The JSON keys, in the JSON's order (`JSONKeyed`).
        public enum CodingKeys: String, CodingKey, CaseIterable {
            case function, ifunc, object, other, tls
        }
    }

    public init() {}
}

/// Static initializers: what runs before `main`.
public struct InitializerCensus: Codable, JSONKeyed, Sendable, Equatable {
    /// `DT_INIT_ARRAY` entries.
    public var initArray: Int = 0
    /// `DT_PREINIT_ARRAY` entries.
    public var preinitArray: Int = 0
    /// Legacy `.ctors` entries (without the -1 and 0 markers).
    public var ctors: Int = 0
    /// `DT_INIT` present.
    public var dtInit: Bool = false
    /// Every entry, DT_INIT counted as one.
    public var total: Int = 0
    /// Entries the toolchain adds to every object (`frame_dummy`, `_init`, ...): in the list,
    /// left out of summaries.
    public var toolchain: Int = 0
    public var entries: [InitializerInfo] = []

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case ctors, dtInit, entries, initArray, preinitArray, toolchain, total
    }

    public init() {}

    /// Entries that are the program's own: `total - toolchain`.
    public var own: Int { total - toolchain }
}

/// One static initializer entry, symbolized.
public struct InitializerInfo: Codable, JSONKeyed, Sendable, Equatable {
    public var source: InitializerSource
    public var index: Int
    /// Link-time address of the function, hex ("0x1139"); `nil` when unresolved.
    public var address: String?
    public var resolution: InitializerResolution
    public var symbol: String?
    public var demangled: String?
    /// For `_GLOBAL__sub_I_<name>`: the name after the prefix (and a priority): a file
    /// ("registry.cpp": Clang, or GCC for a unit without a global function) or the symbol of the
    /// unit's first global function ("_Z5FatalPKcz": GCC).
    public var translationUnit: String?
    public var kind: Kind
    public var toolchain: Bool
    /// The function's first line from DWARF (the object's own or its debug file's); for a C++
    /// translation unit's initializer with `globals`, its first own global's definition (else the
    /// `#include` bringing one); `nil` for toolchain entries, unresolved entries and objects
    /// without DWARF (key left out).
    public var location: SourceLocation? = nil
    /// For a C++ translation unit's initializer: its source file, the DWARF compile unit's
    /// `DW_AT_name` relative to its `DW_AT_comp_dir` (`TranslationUnitName.relative`); `nil`
    /// without DWARF (key left out).
    public var sourceFile: String? = nil
    /// For a C++ translation unit's initializer: the name people know it by
    /// (`TranslationUnitName`): `sourceFile`, else the file the symbol names, else "the
    /// translation unit whose first function is `Fatal(const char*, ...)`"; `nil` for other
    /// entries (key left out). `symbol` keeps the symbol.
    public var name: String? = nil
    /// For a C++ translation unit's initializer with DWARF: the globals it constructs, in the
    /// order it runs them; `nil` without DWARF or for other entries (key left out).
    public var globals: [ConstructedGlobal]? = nil
    /// The priority its symbol carries (`init_priority(101)`: GCC's `_GLOBAL__sub_I.00101_…`,
    /// Clang's `_GLOBAL__I_000101`); `nil` otherwise (key left out), also for
    /// `constructor(N)` functions, whose priority a linked file does not keep.
    public var priority: Int? = nil

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case address, demangled, globals, index, kind, location, name, priority, resolution, source, sourceFile
        case symbol, toolchain, translationUnit
    }

    /// What reports call the entry: the unit's `name`, else the demangled symbol, the symbol,
    /// or "?" for an unnamed entry.
    public var displayName: String { name ?? demangled ?? symbol ?? "?" }

    /// What kind of function the entry runs.
    public enum Kind: String, Codable, Sendable {
        /// `_GLOBAL__sub_I_<file>`: a C++ translation unit's global constructors.
        case cxxTranslationUnit
        /// `__attribute__((constructor))` and other named functions.
        case constructorFunction
        case swift
        /// Added to every object by the toolchain (`frame_dummy`, `_init`, ...).
        case toolchain
        case unknown
    }

    public init(
        source: InitializerSource, index: Int, address: String? = nil, resolution: InitializerResolution,
        symbol: String? = nil,
        demangled: String? = nil, translationUnit: String? = nil, kind: Kind, toolchain: Bool
    ) {
        self.source = source
        self.index = index
        self.address = address
        self.resolution = resolution
        self.symbol = symbol
        self.demangled = demangled
        self.translationUnit = translationUnit
        self.kind = kind
        self.toolchain = toolchain
    }
}

/// Swift start-up suspects and metadata sizes.
public struct SwiftCensus: Codable, JSONKeyed, Sendable, Equatable {
    public var lazyGlobals: [SwiftSuspect]
    public var defaultArguments: [SwiftSuspect]
    /// Sizes in bytes of the `swift5_*` metadata sections present.
    public var metadataSections: [String: UInt64]

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case defaultArguments, lazyGlobals, metadataSections
    }

    public init(lazyGlobals: [SwiftSuspect], defaultArguments: [SwiftSuspect], metadataSections: [String: UInt64]) {
        self.lazyGlobals = lazyGlobals
        self.defaultArguments = defaultArguments
        self.metadataSections = metadataSections
    }
}

/// One Swift start-up suspect: a lazy global's once-function or a default-argument generator.
public struct SwiftSuspect: Codable, JSONKeyed, Sendable, Equatable {
    public var symbol: String
    /// The demangled name; a once-function is named by its variable's full path ("one-time
    /// initialization function for math.Math.Statistics.configuration"). `nil` with
    /// `--no-demangle`.
    public var demangled: String?
    public var address: String
    public var size: UInt64
    /// The function's first line from DWARF (the object's own or its debug file's); `nil` when
    /// there is no DWARF for it (key left out).
    public var location: SourceLocation? = nil

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case address, demangled, location, size, symbol
    }

    public init(symbol: String, demangled: String? = nil, address: String, size: UInt64) {
        self.symbol = symbol
        self.demangled = demangled
        self.address = address
        self.size = size
    }
}

/// Sizes in bytes: the file, and its allocated sections by what the loader does with them
/// (from the `PT_LOAD` segments when the file has no section headers). Section-based, so the
/// figures mean the same whether GNU ld, gold or lld laid the file out: gold puts read-only
/// data in the executable segment, and every linker puts RELRO in the writable one.
public struct SizeCensus: Codable, JSONKeyed, Sendable, Equatable {
    public var file: UInt64 = 0
    /// Code: executable sections (`.text`, `.plt`, `.init`, …).
    public var text: UInt64 = 0
    /// Read-only data: allocated sections neither writable nor executable (`.rodata`,
    /// `.eh_frame`, `swift5_*` metadata, the dynamic symbol and relocation tables, …).
    public var rodata: UInt64 = 0
    /// Writable data outside RELRO (`.data`, `.got.plt`, …), file bytes.
    public var data: UInt64 = 0
    /// Writable sections inside `PT_GNU_RELRO` (`.data.rel.ro`, `.got`, `.dynamic`, …): written
    /// by the loader's relocations, then made read-only. Not part of `data`.
    public var relro: UInt64 = 0
    /// Zero-filled memory outside RELRO (`SHT_NOBITS`; thread-local `.tbss` and lld's
    /// `.relro_padding` left out).
    public var bss: UInt64 = 0
    /// Bytes of `.rodata*` sections that are writable (a linker makes the merged `.rodata`
    /// writable when one input `.rodata` is, as in Swift programs linked by gold or lld),
    /// counted in `data`; `nil` when there are none.
    public var writableRodata: UInt64? = nil
    /// Where the figures come from; `nil` in reports written before premain recorded it
    /// (those counted segments, with RELRO inside `data`).
    public var basis: Basis? = nil

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case basis, bss, data, file, relro, rodata, text, writableRodata
    }

    /// What the sizes were computed from.
    public enum Basis: String, Codable, Sendable {
        case sections, segments
    }

    public init(
        file: UInt64 = 0, text: UInt64 = 0, rodata: UInt64 = 0, data: UInt64 = 0, relro: UInt64 = 0,
        bss: UInt64 = 0, writableRodata: UInt64? = nil, basis: Basis? = nil
    ) {
        self.file = file
        self.text = text
        self.rodata = rodata
        self.data = data
        self.relro = relro
        self.bss = bss
        self.writableRodata = writableRodata
        self.basis = basis
    }
}
