import PremainAudit
import PremainModel

/// One function premain times in one object, at link-time addresses (the load bias is added
/// when the object is found in the process).
struct TraceProbe: Hashable, Sendable {
    /// Path of the object as the loader mapped it.
    var object: String
    /// Link-time address of the first instruction.
    var entry: UInt64
    /// The mangled symbol (or a description such as `DT_INIT_ARRAY[3]` for an unnamed entry).
    var symbol: String
    var demangled: String?
    var kind: TracedFunctionKind
    /// For a function inlined into a caller: link-time addresses where the inlined code ends
    /// (the end of each DWARF range). Empty for real functions, which are timed until they
    /// return to the address found on the stack at entry.
    var exits: [UInt64] = []
    /// For an inlined copy: the function it was inlined into, and the call site.
    var inlinedInto: String?
    var source: SourceLocation?

    var isInlined: Bool { !exits.isEmpty }
}
