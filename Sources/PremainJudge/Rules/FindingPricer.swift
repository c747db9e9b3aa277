import LosslessText
import PremainAudit
import PremainModel

/// Gives each finding about an object or a function its measured cost per launch, from the
/// measure and trace reports in the input: an unused dependency costs that object's loading,
/// relocation and initializers and those of the objects only it brings in; a relocation
/// finding its object's relocation pass; an initializer finding its traced time, else its
/// object's initializers; the Swift runtime's libraries grouped into one finding cost the
/// loading and relocation of every toolchain object. A finding nothing measured stays unpriced.
public struct FindingPricer: Sendable {
    public let input: RuleInput

    public init(input: RuleInput) {
        self.input = input
    }

    public func price(_ findings: [Finding]) -> [Finding] {
        guard !input.launches.isEmpty || !input.functions.isEmpty else { return findings }
        return findings.map { finding in
            var priced = finding
            if let cost = cost(of: finding), !cost.parts.isEmpty || cost.note != nil {
                priced.costBasis = cost
                priced.costMs = cost.totalMs
            }
            return priced
        }
    }

    static let relocationRules: Set<String> = Set(
        [
            RelativeRelocationsWithoutRelrRule.self, TextrelRule.self, CopyRelocationsRule.self,
        ].map { ($0 as any Rule.Type).description.identifier })
    static let initializerRules: Set<String> = Set(
        [
            HeavyStaticInitializerRule.self, IostreamStaticInitializerRule.self, ManyStaticInitializersRule.self,
            SwiftLazyGlobalOnStartupPathRule.self, SwiftDefaultArgumentOnStartupPathRule.self,
        ].map { ($0 as any Rule.Type).description.identifier })
    static let closureRules: Set<String> = Set(
        [ManyClosureObjectsRule.self, DeepDependencyChainRule.self]
            .map { ($0 as any Rule.Type).description.identifier })

    func cost(of finding: Finding) -> FindingCost? {
        let rule = finding.rule
        if rule == UnusedDirectDependencyRule.description.identifier {
            return finding.grouped == nil ? unusedCost(finding) : runtimeCost(finding)
        }
        if Self.relocationRules.contains(rule) {
            guard let (launch, object) = measured(finding.subject.object), let relocation = object.relocation else {
                return nil
            }
            return FindingCost(
                source: .measure, runs: launch.runs,
                parts: [.init(kind: .relocation, subject: finding.subject.object, ms: relocation.medianMs)])
        }
        if Self.initializerRules.contains(rule) {
            if let symbol = finding.subject.symbol,
                let function = traced(object: finding.subject.object, symbol: symbol),
                let time = function.exclusive ?? Optional(function.inclusive)
            {
                return FindingCost(
                    source: .trace, runs: time.samplesMs.count,
                    parts: [.init(kind: .function, subject: symbol, ms: time.medianMs)])
            }
            guard let (launch, object) = measured(finding.subject.object), let time = object.initializers else {
                return nil
            }
            return FindingCost(
                source: .measure, runs: launch.runs,
                parts: [.init(kind: .initializers, subject: finding.subject.object, ms: time.medianMs)])
        }
        if Self.closureRules.contains(rule), let launch = launch(of: finding.subject.object) {
            let libraries = launch.objects.filter { $0.role == .library }
            return FindingCost(
                source: .measure, runs: launch.runs,
                parts: libraries.flatMap { parts(of: $0, initializers: false) },
                ofWhole: "the loader's", wholeMs: loaderPhaseMs(launch))
        }
        return nil
    }

    /// `program` needs `library` (the finding's symbol) for nothing: that object and those only
    /// it brings into the program's closure.
    func unusedCost(_ finding: Finding) -> FindingCost? {
        guard let library = finding.subject.symbol, let launch = launch(of: finding.subject.object) else { return nil }
        var names = [library]
        if let program = input.closures.first(where: { $0.name == finding.subject.object }) {
            let (only, alsoNeededBy) = Self.onlyBroughtIn(by: library, in: program.closure)
            if let other = alsoNeededBy {
                return FindingCost(
                    source: .measure, runs: launch.runs, parts: [],
                    note: "\(other) needs \(ObjectName.fileName(library)) too, so dropping the entry saves nothing")
            }
            names += only
        }
        let objects = names.compactMap { name in launch.objects.first { Self.matches($0, name) } }
        guard !objects.isEmpty else { return nil }
        return FindingCost(
            source: .measure, runs: launch.runs, parts: objects.flatMap { parts(of: $0, initializers: true) })
    }

    /// Linking the Swift runtime statically removes the loading and relocation of every
    /// toolchain object (their initializers stay, in the program).
    func runtimeCost(_ finding: Finding) -> FindingCost? {
        guard let launch = launch(of: finding.subject.object) else { return nil }
        let runtime = launch.objects.filter {
            $0.role == .library && SwiftToolchainLibraries.contains(ObjectName.fileName($0.path))
        }
        guard !runtime.isEmpty else { return nil }
        return FindingCost(
            source: .measure, runs: launch.runs, parts: runtime.flatMap { parts(of: $0, initializers: false) },
            ofWhole: "the loader's", wholeMs: loaderPhaseMs(launch))
    }

    func parts(of object: ObjectMeasurement, initializers: Bool) -> [FindingCost.Part] {
        let name = ObjectName.fileName(object.path)
        var parts: [FindingCost.Part] = []
        if let value = object.mapping { parts.append(.init(kind: .mapping, subject: name, ms: value.medianMs)) }
        if let value = object.relocation { parts.append(.init(kind: .relocation, subject: name, ms: value.medianMs)) }
        if initializers, let value = object.initializers {
            parts.append(.init(kind: .initializers, subject: name, ms: value.medianMs))
        }
        return parts
    }

    func loaderPhaseMs(_ launch: LaunchMeasurement) -> Double? {
        if let phase = launch.breakdown?.loaderPhase { return phase.medianMs }
        guard let done = launch.milestones[.loaderDone], let start = launch.milestones[.loaderStart] else { return nil }
        return done.medianMs - start.medianMs
    }

    /// The launch of `program` (by its executable's or command's file name); the only launch
    /// when there is one.
    func launch(of program: String) -> LaunchMeasurement? {
        let wanted = Self.key(program)
        let named = input.launches.first { launch in
            launch.objects.contains { $0.role == .executable && Self.key($0.path) == wanted }
                || launch.command.first.map(Self.key) == wanted
        }
        return named ?? (input.launches.count == 1 ? input.launches[0] : nil)
    }

    /// A launch that measured `name` and that object.
    func measured(_ name: String) -> (LaunchMeasurement, ObjectMeasurement)? {
        for launch in input.launches {
            if let object = launch.objects.first(where: { Self.matches($0, name) }) { return (launch, object) }
        }
        return nil
    }

    func traced(object: String, symbol: String) -> TracedFunction? {
        input.functions.first { function in
            (function.displayName == symbol || function.subjectName == symbol || function.symbol == symbol)
                && (Self.key(function.object) == Self.key(object) || function.object == object)
        }
    }

    static func matches(_ object: ObjectMeasurement, _ name: String) -> Bool {
        key(object.path) == key(name)
    }

    /// A file name as reports write it: a byte that is not UTF-8 is the raw byte in a name read
    /// from a file (`LosslessUTF8`) but the text `\xff` in one decoded from a JSON report, so
    /// names are compared as `TextSafety.display` shows them (issue 34, defect 6: the finding
    /// about `libun\xff.so` was left unpriced).
    static func key(_ name: String) -> String {
        TextSafety.display(ObjectName.fileName(name))
    }

    /// The objects of `closure` that no chain of `DT_NEEDED` from the program reaches without
    /// passing through `library`, and an object other than the program that needs `library`
    /// itself (then dropping the program's entry removes nothing).
    static func onlyBroughtIn(by library: String, in closure: DependencyClosure) -> (
        only: [String], alsoNeededBy: String?
    ) {
        var byName: [String: ClosureObject] = [:]
        for object in closure.objects {
            for key in [object.requestedName, object.soname, ObjectName.fileName(object.path)].compactMap({ $0 }) {
                if byName[key] == nil { byName[key] = object }
            }
        }
        let libraryKey = byName[ObjectName.fileName(library)]?.path
        func reach(from roots: [ClosureObject]) -> Set<String> {
            var seen: Set<String> = []
            var queue = roots
            while let object = queue.popLast() {
                guard object.path != libraryKey, seen.insert(object.path).inserted else { continue }
                queue += object.needed.compactMap { byName[ObjectName.fileName($0)] ?? byName[$0] }
            }
            return seen
        }
        let direct = closure.objects.filter { $0.depth == 1 }
        let withoutIt = reach(from: direct)
        guard let libraryObject = libraryKey.flatMap({ key in closure.objects.first { $0.path == key } }) else {
            return ([], nil)
        }
        let needer = closure.objects.first { object in
            withoutIt.contains(object.path) && object.path != libraryObject.path
                && object.needed.contains { byName[ObjectName.fileName($0)]?.path == libraryObject.path }
        }
        if let needer { return ([], ObjectName.of(needer)) }
        var only: [String] = []
        var seen: Set<String> = [libraryObject.path]
        var queue = libraryObject.needed.compactMap { byName[ObjectName.fileName($0)] ?? byName[$0] }
        while let object = queue.popLast() {
            guard seen.insert(object.path).inserted, !withoutIt.contains(object.path) else { continue }
            only.append(ObjectName.fileName(object.path))
            queue += object.needed.compactMap { byName[ObjectName.fileName($0)] ?? byName[$0] }
        }
        return (only, nil)
    }
}
