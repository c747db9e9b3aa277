/// How a C++ translation unit's initializer (`_GLOBAL__sub_I_…`) is named for people: by its
/// source file, else by the function GCC keyed it to. Audit, trace, compare, pr and the rules
/// all name it through `name(sourceFile:keyedName:demangle:)`, so one unit has one name.
public enum TranslationUnitName {
    /// The readable name of a translation unit's initializer: `sourceFile` when known (the
    /// compile unit's file from DWARF, "src/util.cc"); else the file the symbol names (Clang's
    /// `_GLOBAL__sub_I_util.cc`, GCC's when the unit defines no global function); else "the
    /// translation unit whose first function is `Fatal(const char*, ...)`", from the first
    /// global function GCC keyed the name to (`keyedName`, "_Z5FatalPKcz"), read by
    /// `demangle`. `nil` when `keyedName` is `nil` and no file is known.
    public static func name(sourceFile: String?, keyedName: String?, demangle: (String) -> String?) -> String? {
        if let sourceFile, !sourceFile.isEmpty { return sourceFile }
        guard let keyedName else { return nil }
        if isFileName(keyedName) { return keyedName }
        let function = demangle(keyedName) ?? keyedName
        return "the translation unit whose first function is `\(function)`"
    }

    /// `true` when the text after `_GLOBAL__sub_I_` is a file name ("util.cc", "a.b.cpp"),
    /// not a function's symbol: mangled symbols start with `_Z`, and C symbols have no dot.
    public static func isFileName(_ keyedName: String) -> Bool {
        // The bytes first: a "." `Character` is the "." byte, and in ASCII text every "." byte
        // is one (only "\r\n" makes one `Character` of two ASCII bytes); `contains(".")`
        // compares `Character`s, thousands of instructions for a long name.
        let bytes = keyedName.utf8.withContiguousStorageIfAvailable { bytes -> (dot: Bool, ascii: Bool) in
            var all: UInt8 = 0
            var dot = false
            for byte in bytes {
                all |= byte
                dot = dot || byte == UInt8(ascii: ".")
            }
            return (dot, all < 0x80)
        }
        if let bytes, !bytes.dot { return false }
        guard !keyedName.hasPrefix("_Z") else { return false }
        return bytes?.ascii == true || keyedName.contains(".")
    }

    /// `name` (a DWARF compile unit's `DW_AT_name`) shown relative to `directory` (its
    /// `DW_AT_comp_dir`): a relative name as it is; an absolute one inside `directory` without
    /// it; else without the folders it shares with `directory` ("/w/ninja/src/util.cc" built in
    /// "/w/ninja/build" → "src/util.cc"); as it is when they share only "/".
    public static func relative(_ name: String, to directory: String?) -> String {
        guard name.hasPrefix("/"), let directory, directory.hasPrefix("/") else { return name }
        let folders = directory.split(separator: "/", omittingEmptySubsequences: true)
        var parts = name.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count > 1 else { return name }
        var shared = 0
        while shared < folders.count, shared < parts.count - 1, folders[shared] == parts[shared] { shared += 1 }
        guard shared > 0 else { return name }
        parts.removeFirst(shared)
        return parts.joined(separator: "/")
    }
}

/// One global a translation unit's initializer constructs (or one constructor it calls), in
/// the order it runs: from the DWARF of the initializer (its inlined constructors, its calls
/// and its line rows), named by the variable defined at that line.
public struct ConstructedGlobal: Codable, JSONKeyed, Sendable, Equatable, Hashable {
    /// The variable's name ("startup_aliases", "std::__ioinit"); `nil` when no variable is
    /// declared at `location` in the unit's DWARF (key left out).
    public var variable: String?
    /// The constructor or function run for it, demangled ("StartupAliases::StartupAliases()");
    /// `nil` when the initializer's code for it calls nothing DWARF names (key left out).
    public var constructor: String?
    /// Where the global is defined: its definition's line (the call site of its constructor).
    public var location: SourceLocation
    /// For a global defined in a header (`std::__ioinit` in <iostream>): the line of the unit's
    /// source file that includes that header, when the source is readable and includes it
    /// itself; `nil` otherwise (key left out).
    public var includedAt: SourceLocation?

    /// The JSON keys, in the JSON's order (`JSONKeyed`).
    public enum CodingKeys: String, CodingKey, CaseIterable {
        case constructor, includedAt, location, variable
    }

    public init(variable: String?, constructor: String?, location: SourceLocation, includedAt: SourceLocation? = nil) {
        self.variable = variable
        self.constructor = constructor
        self.location = location
        self.includedAt = includedAt
    }

    /// "`startup_aliases` (StartupAliases::StartupAliases(), util.cc:966)": the variable, the
    /// constructor, and the definition's line; the constructor alone when no variable is known.
    public var text: String {
        let place = location.shortText
        switch (variable, constructor) {
        case (let variable?, let constructor?): return "`\(variable)` (\(constructor), \(place))"
        case (let variable?, nil): return "`\(variable)` (\(place))"
        case (nil, let constructor?): return "\(constructor) (\(place))"
        case (nil, nil): return place
        }
    }

    /// The constructor of `std::ios_base::Init` (`<iostream>`'s per-unit `__ioinit` object).
    public static let iostreamInitConstructor = "std::ios_base::Init::Init()"

    /// `true` for the `std::ios_base::Init` object `<iostream>` defines in every unit that
    /// includes it (GCC before 13).
    public var isIostreamInit: Bool {
        constructor == Self.iostreamInitConstructor || variable == "std::__ioinit"
    }
}
