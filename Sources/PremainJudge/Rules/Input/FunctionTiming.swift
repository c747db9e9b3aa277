import FoundationEssentials
import PremainAudit
import PremainModel

/// One function `premain trace` timed, read from its JSON report (`measurements[].functions[]`).
public struct FunctionTiming: Codable, Sendable, Equatable {
    /// The object's path as the tracer saw it.
    public var object: String
    public var symbol: String
    public var demangled: String?
    /// staticInitializer, cxxTranslationUnitInitializer, constructorFunction, swiftLazyGlobal,
    /// swiftDefaultArgument, named.
    public var kind: String
    /// Calls per run (median).
    public var calls: Double
    /// Time inside the function and what it calls, per run.
    public var inclusive: TimingSummary

    public init(object: String, symbol: String, demangled: String? = nil, kind: String, calls: Double = 1,
                inclusive: TimingSummary) {
        self.object = object
        self.symbol = symbol
        self.demangled = demangled
        self.kind = kind
        self.calls = calls
        self.inclusive = inclusive
    }

    /// The name shown to people: demangled when known.
    public var displayName: String { demangled ?? symbol }

    /// Reads one `functions[]` entry; `nil` when it lacks object, symbol or inclusive time.
    public init?(json value: JSONValue) {
        guard case .string(let object)? = value["object"], case .string(let symbol)? = value["symbol"],
              let inclusive = value["inclusive"]?.decoded(TimingSummary.self) else { return nil }
        var demangled: String?
        if case .string(let text)? = value["demangled"] { demangled = text }
        var kind = "named"
        if case .string(let text)? = value["kind"] { kind = text }
        var calls = 1.0
        if case .number(let count)? = value["calls"] {
            calls = count
        } else if let summary = value["calls"]?.decoded(TimingSummary.self) {
            calls = summary.medianMs
        } else if case .number(let median)? = value["calls"]?["median"] {
            calls = median
        }
        self.init(object: object, symbol: symbol, demangled: demangled, kind: kind, calls: calls, inclusive: inclusive)
    }
}

extension JSONValue {
    /// This value decoded as `T` through JSON; `nil` when it does not fit.
    func decoded<T: Decodable>(_ type: T.Type) -> T? {
        guard let data = try? JSONEncoder().encode(self) else { return nil }
        return try? JSONDecoder().decode(type, from: data)
    }
}
