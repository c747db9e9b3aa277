import CDemangle
import PremainModel

#if canImport(Glibc)
import Glibc
#endif

/// Turns mangled C++ and Swift names into readable ones with the demanglers that ship on the
/// machine: libstdc++'s `__cxa_demangle` and the Swift runtime's `swift_demangle`.
public enum Demangler {
    /// The readable form of `name`, or `nil` when it is not a mangled C++ or Swift name (or
    /// the demangler rejects it).
    public static func demangle(_ name: String) -> String? {
        if isSwift(name) { return swift(name) }
        if name.hasPrefix("_Z") { return cxx(name) }
        return nil
    }

    /// `true` for Swift mangling prefixes: `$s`, `$S`, `_$s`, `_T0`, `$e`.
    public static func isSwift(_ name: String) -> Bool {
        name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_$s") || name.hasPrefix("_$S")
            || name.hasPrefix("$e") || name.hasPrefix("_T0")
    }

    static func cxx(_ name: String) -> String? {
        var status: Int32 = 0
        guard let result = __cxa_demangle(name, nil, nil, &status) else { return nil }
        defer { free(result) }
        return status == 0 ? String(cString: result) : nil
    }

    static func swift(_ name: String) -> String? {
        let length = name.utf8.count
        guard let result = swift_demangle(name, length, nil, nil, 0) else { return nil }
        defer { free(result) }
        let text = String(cString: result)
        return text == name ? nil : text
    }
}
