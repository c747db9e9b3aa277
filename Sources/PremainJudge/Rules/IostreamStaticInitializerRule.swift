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
        input.objects.flatMap { binary -> [Finding] in
            guard let imported = binary.symbols.importedNames,
                imported.contains(where: { $0 == Self.constructor || $0.hasPrefix(Self.constructor + "@") })
            else { return [] }
            let units = binary.initializers.entries.filter { $0.kind == .cxxTranslationUnit }
            guard !units.isEmpty else { return [] }
            // With DWARF: one finding per unit that constructs std::ios_base::Init, at its
            // #include <iostream> (else at the object's definition in <iostream>).
            let located = units.compactMap { unit in
                unit.globals?.first(where: \.isIostreamInit).map { (unit, $0) }
            }
            if !located.isEmpty || units.allSatisfy({ $0.globals != nil }) {
                return located.map { unit, global in
                    finding(
                        config,
                        RuleInput.subject(
                            binary, symbol: "#include <iostream> in \(RuleInput.unitSubject(unit.displayName))"),
                        message:
                            "\(unit.displayName) includes <iostream>, so \(ObjectName.of(binary)) constructs std::ios_base::Init in its static initializers",
                        advice: Self.description.advice, location: global.includedAt ?? global.location)
                }
            }
            let names = units.map(\.displayName)
            return [
                finding(
                    config, RuleInput.subject(binary, symbol: ConstructedGlobal.iostreamInitConstructor),
                    message:
                        "\(ObjectName.of(binary)) constructs std::ios_base::Init in a static initializer (one of the translation units \(names.joined(separator: ", ")) includes <iostream>)",
                    advice: Self.description.advice, location: units.firstLocation)
            ]
        }
    }
}
