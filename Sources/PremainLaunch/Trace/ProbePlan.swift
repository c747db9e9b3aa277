import PremainAudit
import PremainModel

/// A place in an object the tracer stops at for a reason other than timing a function.
enum TraceMarker: Hashable, Sendable {
    /// The program's `main`.
    case main
    /// `__libc_start_main`: its first argument is `main` (used when `main` has no symbol).
    case libcStartMain
    /// libc `write`/`writev`: a call with fd 1 or 2 is the first output.
    case write
    /// The loader's debugger hook (`_dl_debug_state`, where `r_debug.r_brk` points).
    case loaderHook
    /// The function named with `--until SYMBOL`.
    case until
}

/// What premain plants in one object: probes and markers at link-time addresses.
struct ProbePlan: Sendable {
    var path: String
    var probes: [TraceProbe]
    var markers: [TraceMarker: [UInt64]]
    /// Link-time `p_vaddr` and `p_offset` of each PT_LOAD, to find the load bias.
    var loadSegments: [(virtualAddress: UInt64, offset: UInt64)]
    /// Functions that exist in the object but cannot be timed, with the reason.
    var untimed: [UntimedFunction]
    /// ET_DYN objects are relocated by a bias; ET_EXEC ones are not.
    var isPositionIndependent: Bool
}
