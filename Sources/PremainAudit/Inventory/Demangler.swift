import CDemangle
import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

/// Turns mangled C++ and Swift names into readable ones with the demanglers that ship on the
/// machine: libstdc++'s `__cxa_demangle` and the Swift runtime's `swift_demangle`.
public enum Demangler {
    /// Longest name demangled; a longer one keeps its mangled form. Real names stay far below
    /// (the longest in swift-frontend, a few KiB).
    public static let maxNameLength = 64 << 10
    /// Longest name demangled on the caller's thread. Both demanglers recurse about once per
    /// few bytes of a nested name, so longer names go to a thread with a large stack
    /// (`LargeStack`) where a crafted 64 KiB name still fits.
    static let callerStackNameLength = 1 << 10

    /// The readable form of `name`, or `nil` when it is not a mangled C++ or Swift name, the
    /// demangler rejects it, or it is longer than `maxNameLength`.
    public static func demangle(_ name: String) -> String? {
        guard isSwift(name) || name.utf8HasPrefix("_Z") && name.hasPrefix("_Z") else { return nil }
        let length = name.utf8.count
        guard length <= maxNameLength else { return nil }
        guard length > callerStackNameLength else { return demangleHere(name) }
        return LargeStack.run { demangleHere(name) } ?? nil
    }

    private static func demangleHere(_ name: String) -> String? {
        isSwift(name) ? swift(name) : cxx(name)
    }

    /// `true` for Swift mangling prefixes: `$s`, `$S`, `_$s`, `_T0`, `$e`.
    public static func isSwift(_ name: String) -> Bool {
        // The first bytes first: "$", or "_" then "$" or "T" (`String.utf8HasPrefix`).
        let utf8 = name.utf8
        guard let first = utf8.first else { return false }
        if first == UInt8(ascii: "_") {
            let second = utf8.dropFirst().first
            guard second == UInt8(ascii: "$") || second == UInt8(ascii: "T") else { return false }
        } else if first != UInt8(ascii: "$") {
            return false
        }
        return name.hasPrefix("$s") || name.hasPrefix("$S") || name.hasPrefix("_$s") || name.hasPrefix("_$S")
            || name.hasPrefix("$e") || name.hasPrefix("_T0")
    }

    static func cxx(_ name: String) -> String? {
        var status: Int32 = 0
        guard let result = __cxa_demangle(name, nil, nil, &status) else { return nil }
        defer { free(result) }
        return status == 0 ? String(cString: result) : nil
    }

    /// Swift's demangling, with a lazy global's once-function and once-token named by the
    /// variable's full path ("one-time initialization function for
    /// math.Math.Statistics.configuration"), where Swift's demangler prints the bare variable
    /// name ("… for configuration") that a dozen types may share.
    static func swift(_ name: String) -> String? {
        guard let text = swiftRuntime(name) else { return nil }
        if name.hasSuffix("WZ") || name.hasSuffix("Wz"), let qualified = qualifiedOnce(name, text) { return qualified }
        return text
    }

    static func swiftRuntime<S: StringProtocol>(_ name: S) -> String? {
        let name = String(name)
        let length = name.utf8.count
        guard let result = swift_demangle(name, length, nil, nil, 0) else { return nil }
        defer { free(result) }
        let text = String(cString: result)
        return text == name ? nil : text
    }

    /// The once-function `text` (demangled from `name`, "<context><names>WZ") with its
    /// variable's context put back. The mangling keeps the context, but the demangler prints
    /// only the names: demangling the context with a stand-in variable of type Int
    /// ("<context><name>Sivp" → "math.Math.Statistics.configuration : Swift.Int") gives it.
    /// `nil` when that fails.
    static func qualifiedOnce(_ name: String, _ text: String) -> String? {
        guard let prefix = [SwiftName.onceFunctionPrefix, SwiftName.onceTokenPrefix].first(where: text.hasPrefix)
        else { return nil }
        let variables = String(text.dropFirst(prefix.count))
        let mangled = name.dropLast(2)
        let standIn = " : Swift.Int"
        // One variable: "<context><identifier>_".
        if mangled.hasSuffix("_"), let declared = swiftRuntime(mangled.dropLast() + "Sivp"),
            declared.hasSuffix(standIn)
        {
            let qualified = declared.dropLast(standIn.count)
            if qualified.hasSuffix(variables) { return prefix + qualified }
        }
        // A tuple pattern "(a, b)": the context ends where the first name's identifier starts.
        guard variables.hasPrefix("("), let first = variables.dropFirst().split(separator: ",").first,
            !first.contains(" "), let start = mangled.firstRange(of: "\(first.utf8.count)\(first)")
        else { return nil }
        guard let declared = swiftRuntime(mangled[..<start.upperBound] + "Sivp"), declared.hasSuffix(standIn) else {
            return nil
        }
        let qualified = declared.dropLast(standIn.count)
        guard qualified.hasSuffix(first) else { return nil }
        return prefix + qualified.dropLast(first.count) + variables
    }
}
