import PremainAudit
import PremainModel

/// A translation unit that includes `<iostream>` gets a `std::ios_base::Init` object whose
/// constructor runs before main (GCC before 13; libc++ similarly).
public struct IostreamStaticInitializerRule: Rule {
    public static let description = RuleDescription(
        identifier: "iostream_static_initializer",
        summary: "A translation unit includes <iostream> and constructs std::ios_base::Init before main",
        advice:
            "Include <iostream> only where std::cout or std::cerr are used (use <ostream>, <istream> or <iosfwd> elsewhere), or build with GCC 13 or later, whose libstdc++ initializes the streams once",
        severity: .note,
        triggeringSamples: ["cxx-static-init/libinit.so"],
        nonTriggeringSamples: ["cxx-static-init/cxx-static-init", "c-hello/c-hello"])

    static let constructor = "_ZNSt8ios_base4InitC1Ev"

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        input.objects.compactMap { binary in
            guard let imported = binary.symbols.importedNames,
                imported.contains(where: { $0 == Self.constructor || $0.hasPrefix(Self.constructor + "@") })
            else { return nil }
            let units = binary.initializers.entries.filter { $0.kind == .cxxTranslationUnit }
            guard !units.isEmpty else { return nil }
            let names = units.map { $0.translationUnit ?? $0.symbol ?? "?" }
            return finding(
                config, RuleInput.subject(binary, symbol: "std::ios_base::Init::Init()"),
                message:
                    "\(ObjectName.of(binary)) constructs std::ios_base::Init in a static initializer (one of the translation units \(names.joined(separator: ", ")) includes <iostream>)",
                advice: Self.description.advice, location: units.firstLocation)
        }
    }
}
