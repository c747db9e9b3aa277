import PremainAudit
import PremainModel

/// Everything rules look at for one program (or one folder of objects): the static audits,
/// the closure when resolved, and launch and per-function timings when measured.
///
/// Built from reports by `RuleInputBuilder`, so a rule never knows whether its data came from
/// a binary or a JSON file.
public struct RuleInput: Sendable, Equatable {
    /// Audited objects: programs and the libraries premain could read. `[]` when only
    /// measurements were given.
    public var objects: [BinaryInventory]
    /// One closure per program whose closure was resolved.
    public var closures: [ClosureFacts]
    /// The glibc the programs run against (from the closure's libc or the `GLIBC_2.x`
    /// versions they require); `nil` when unknown.
    public var glibc: GlibcVersion?
    /// One entry per measured command.
    public var launches: [LaunchFacts]
    /// Functions timed by `premain trace`.
    public var functions: [FunctionTiming]

    public init(objects: [BinaryInventory] = [], closures: [ClosureFacts] = [], glibc: GlibcVersion? = nil,
                launches: [LaunchFacts] = [], functions: [FunctionTiming] = []) {
        self.objects = objects
        self.closures = closures
        self.glibc = glibc
        self.launches = launches
        self.functions = functions
    }

    /// Adds another input's facts (for several files given at once).
    public mutating func merge(_ other: RuleInput) {
        objects += other.objects
        closures += other.closures
        launches += other.launches
        functions += other.functions
        if let version = other.glibc { glibc = max(glibc ?? version, version) }
    }

    /// The subject of a finding about an audited object.
    static func subject(_ binary: BinaryInventory, symbol: String? = nil) -> Finding.Subject {
        Finding.Subject(object: ObjectName.of(binary), path: binary.path, symbol: symbol)
    }

    /// The subject of a finding about an object known by path only.
    static func subject(path: String, symbol: String? = nil) -> Finding.Subject {
        Finding.Subject(object: ObjectName.fileName(path), path: path, symbol: symbol)
    }
}
