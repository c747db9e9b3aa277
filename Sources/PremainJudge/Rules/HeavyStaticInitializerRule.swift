import PremainAudit
import PremainModel

/// A static initializer (C++ global constructor, `__attribute__((constructor))`) that takes
/// long: per function from `premain trace`, per object from `premain measure`.
public struct HeavyStaticInitializerRule: Rule {
    public static let description = RuleDescription(
        identifier: "heavy_static_initializer",
        summary: "A static initializer takes long before main",
        advice:
            "Make the work lazy (a function-local static or std::call_once on first use), move it after main, or cache its result",
        severity: .warning,
        defaults: ["thresholdMs": 1.0, "objectThresholdMs": 5.0],
        measured: true,
        triggeringSamples: ["measured:cxx-static-init/cxx-static-init"],
        nonTriggeringSamples: [
            "measured:c-hello/c-hello",
            "measured:cxx-static-init/cxx-static-init?REGISTRY=0&PLUGINS=0&CTOR_C=0&CTOR_101=0&MAIN_CPP=0",
        ])

    static let initializerKinds: Set<TracedFunctionKind> = [
        .staticInitializer, .cxxTranslationUnitInitializer, .cxxGlobal, .constructorFunction,
    ]

    public init() {}

    public func check(_ input: RuleInput, _ config: RuleConfig) -> [Finding] {
        var findings: [Finding] = []
        let threshold = config["thresholdMs"]
        // Units whose globals were timed apart: the unit is judged on the rest (its own time),
        // each global on its own at its definition.
        let unitsWithGlobals = Set(
            input.functions.filter { $0.kind == .cxxGlobal }.compactMap { global in
                global.inlinedInto.map { [global.object, $0] }
            })
        for function in input.functions where Self.initializerKinds.contains(function.kind) {
            let apart =
                function.kind == .cxxTranslationUnitInitializer
                && unitsWithGlobals.contains([function.object, function.displayName])
            guard let median = apart ? function.exclusive?.medianMs : function.inclusive.medianMs,
                median >= threshold
            else { continue }
            let object = ObjectName.fileName(function.object)
            let what: String
            switch function.kind {
            case .cxxTranslationUnitInitializer:
                what =
                    "The static initializers of \(function.displayName) in \(object) take"
                    + (apart ? " (besides its globals timed apart)" : "")
            case .cxxGlobal:
                what = "The C++ global \(function.displayName) of \(function.inlinedInto ?? "?") in \(object) takes"
            default:
                what = "Static initializer \(function.displayName) in \(object) takes"
            }
            findings.append(
                finding(
                    config, RuleInput.subject(path: function.object, symbol: function.subjectName),
                    figure: median, threshold: threshold, unit: "ms",
                    message:
                        "\(what) \(Milliseconds.text(median)) (median), threshold \(Milliseconds.text(threshold))",
                    advice: Self.description.advice, location: function.location))
        }
        let objectThreshold = config["objectThresholdMs"]
        for launch in input.launches {
            for object in launch.objects {
                guard let time = object.initializers, time.medianMs >= objectThreshold else { continue }
                findings.append(
                    finding(
                        config, RuleInput.subject(path: object.path),
                        figure: time.medianMs, threshold: objectThreshold, unit: "ms",
                        message:
                            "The initializers of \(ObjectName.fileName(object.path)) take \(Milliseconds.text(time.medianMs)) (median) before main, threshold \(Milliseconds.text(objectThreshold))",
                        advice: "Run premain trace to see which initializer costs most; "
                            + Self.description.advice.lowercasedFirst,
                        location: input.object(at: object.path)?.initializers.entries.filter { !$0.toolchain }
                            .firstLocation))
            }
        }
        return findings
    }
}

extension String {
    /// The string with its first letter lowercased ("Make" → "make").
    var lowercasedFirst: String {
        guard let first else { return self }
        return first.lowercased() + dropFirst()
    }
}
