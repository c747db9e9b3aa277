import ELFKit
import PremainModel

/// What kind of Swift code a mangled symbol is, for the start-up suspects.
public enum SwiftSuspectKind: String, Codable, Sendable {
    /// A global `let`/`var`'s one-time initializer (mangling suffix `WZ`), run on first use.
    case lazyGlobal
    /// A default-argument generator (`fA_`, `fA0_`, ...), run at every call site that omits
    /// the argument.
    case defaultArgument
}

/// Classifies Swift mangled names. Works on the name alone, so it costs one suffix check per
/// symbol.
public enum SwiftSuspects {
    /// The suspect kind of `name`, or `nil` when it is neither a lazy-global initializer nor a
    /// default-argument generator.
    public static func kind(of name: String) -> SwiftSuspectKind? {
        let utf8 = name.utf8
        guard utf8.count > 4, Demangler.isSwift(name) else { return nil }
        // Lazy global: "...WZ" (one-time initialization function).
        if name.hasSuffix("WZ") { return .lazyGlobal }
        // Default argument: "...fA_" or "...fA<digits>_".
        guard utf8.last == UInt8(ascii: "_") else { return nil }
        var index = utf8.index(before: utf8.endIndex)
        while index > utf8.startIndex {
            let previous = utf8.index(before: index)
            let byte = utf8[previous]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                index = previous
                continue
            }
            guard byte == UInt8(ascii: "A"), previous > utf8.startIndex else { return nil }
            return utf8[utf8.index(before: previous)] == UInt8(ascii: "f") ? .defaultArgument : nil
        }
        return nil
    }

    /// The metadata sections the Swift runtime scans at start-up or on first use.
    public static let metadataSectionNames: Set<String> = [
        "swift5_protocols", "swift5_protocol_conformances", "swift5_type_metadata", "swift5_types",
        "swift5_typeref", "swift5_reflstr", "swift5_fieldmd", "swift5_assocty", "swift5_builtin",
        "swift5_capture", "swift5_mpenum", "swift5_replace", "swift5_replac2", "swift5_accessible_functions",
        "swift5_runtime_attributes", "swift5_tests",
    ]

    /// Whether `name` is one of `metadataSectionNames`. Its bytes are tested first: nearly every
    /// other name starts with ".", and no other spelling of these ASCII names is equal to one
    /// (`String`'s `==` is canonical equivalence), so only "swift5_" names are hashed.
    public static func isMetadataSection(_ name: String) -> Bool {
        name.utf8.first == UInt8(ascii: "s") && name.utf8.starts(with: "swift5_".utf8)
            && metadataSectionNames.contains(name)
    }
}

extension SwiftSuspects {
    /// Sets the DWARF line of every lazy global's once-function and default-argument generator,
    /// from the file's own DWARF or its debug file, so people find the `let` or the parameter.
    /// Leaves `location` `nil` when no DWARF is found or it has no line for the address; opens
    /// no DWARF when there is no suspect.
    static func locate(_ census: inout SwiftCensus, debug: DebugLookup) {
        func address(_ suspect: SwiftSuspect) -> UInt64? {
            guard let address = hexValue(suspect.address), address != 0 else { return nil }
            return address
        }
        let locations = debug.sourceLocations(of: (census.lazyGlobals + census.defaultArguments).compactMap(address))
        guard !locations.isEmpty else { return }
        func locate(_ suspects: inout [SwiftSuspect]) {
            for index in suspects.indices {
                guard let address = address(suspects[index]), let location = locations[address], location.line > 0
                else { continue }
                suspects[index].location = location
            }
        }
        locate(&census.lazyGlobals)
        locate(&census.defaultArguments)
    }
}
