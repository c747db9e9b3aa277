import PremainAudit
import PremainModel

/// Turns the callgrind dumps of one run into `InstructionCounts`. Pure: the dumps and the
/// descriptors of the run's write system calls in, the counts out.
///
/// The run dumps before `main` and before every `write`/`writev` call (`InstructionCounter`
/// asks callgrind for that), then at exit. Each dump holds the cost since the previous one, so
/// "before main" is the sum of the dumps up to the one triggered by `main`, and "to first
/// output" the sum up to the dump of the first write whose system call went to fd 1 or 2 (the
/// n-th write dump belongs to the n-th write system call). Initializers are the calls made by
/// glibc's loader (`_dl_init`, `call_init`) into other objects, and by libc's
/// `__libc_start_main` into objects other than libc and the loader (the executable's own),
/// added up over the dumps before `main`.
public enum InstructionCountBuilder {
    /// Trigger of the dump made when `main` is entered.
    static let mainTrigger = "--dump-before=main"
    /// The functions whose calls run static initializers (glibc 2.34 and later).
    static let loaderCallers: Set<String> = ["_dl_init", "call_init"]
    /// Functions only glibc's loader defines: their object is the loader.
    static let loaderMarkers: Set<String> = ["_dl_start", "_dl_init", "_dl_start_user", "_dl_sysdep_start"]

    /// The counts of one run whose dumps are `parts`, in the order they were made (the exit dump
    /// last), and whose write/writev system calls went to `writeDescriptors`, in order.
    public static func counts(parts: [CallgrindProfile], writeDescriptors: [Int32], exitStatus: Int32 = 0)
        -> InstructionCounts
    {
        var notes: [String] = []
        let cumulative = parts.reduce(into: [UInt64]()) { sums, part in
            sums.append((sums.last ?? 0).saturatingAdd(part.cost))
        }
        let total = cumulative.last ?? 0
        let mainPart = parts.firstIndex { $0.trigger == mainTrigger }
        let beforeMain = mainPart.map { cumulative[$0] }
        if mainPart == nil {
            notes.append("main was not reached, or the program has no symbol named main: no count before main")
        }

        var toFirstOutput: UInt64?
        let writeParts = parts.indices.filter {
            parts[$0].trigger.map { $0.hasPrefix("--dump-before=") && $0 != mainTrigger } ?? false
        }
        if let first = writeDescriptors.firstIndex(where: { $0 == 1 || $0 == 2 }) {
            if writeParts.count == writeDescriptors.count {
                toFirstOutput = cumulative[writeParts[first]]
            } else {
                notes.append(
                    "first output not placed: callgrind saw \(writeParts.count) write calls, the kernel \(writeDescriptors.count) write system calls"
                )
            }
        }

        // Initializers run before main; when main never came, every dump counts.
        let early = parts.prefix(mainPart.map { $0 + 1 } ?? parts.count)
        var loaderObjects: Set<String> = []
        for part in early {
            for function in part.selfCost.keys where loaderMarkers.contains(function.name) {
                loaderObjects.insert(function.object)
            }
        }
        if loaderObjects.isEmpty {
            notes.append(
                "no glibc loader functions in the profile (a static executable, or glibc without debug symbols: Debian package libc6-dbg): initializers are not told apart from the start-up code"
            )
        }

        var initializers = Tally()
        var swiftFunctions = Tally()
        for part in early {
            for call in part.calls {
                if !loaderObjects.isEmpty, isInitializerCall(call, loaderObjects: loaderObjects) {
                    initializers.add(call)
                } else if SwiftSuspects.kind(of: call.callee.name) != nil {
                    swiftFunctions.add(call)
                }
            }
        }

        var objects: [String: ObjectInstructions] = [:]
        for (function, sum) in initializers.sums {
            objects[function.object, default: ObjectInstructions(object: function.object, instructions: 0, calls: 0)]
                .add(sum)
        }
        var functions = initializers.sums.map { function, sum in
            FunctionInstructions(
                kind: ProbePlanner.initializerKind(named(function.name)), object: function.object,
                symbol: function.name, demangled: Demangler.demangle(function.name),
                instructions: sum.instructions, calls: sum.calls)
        }
        functions += swiftFunctions.sums.map { function, sum in
            let kind: TracedFunctionKind =
                SwiftSuspects.kind(of: function.name) == .lazyGlobal ? .swiftLazyGlobal : .swiftDefaultArgument
            return FunctionInstructions(
                kind: kind, object: function.object, symbol: function.name,
                demangled: Demangler.demangle(function.name),
                instructions: sum.instructions, calls: sum.calls)
        }
        return InstructionCounts(
            beforeMain: beforeMain, toFirstOutput: toFirstOutput, total: total,
            objects: objects.values.sorted { ($0.instructions, $1.object) > ($1.instructions, $0.object) },
            functions: functions.sorted {
                ($0.instructions, $1.object, $1.symbol) > ($1.instructions, $0.object, $0.symbol)
            },
            exitStatus: exitStatus, notes: notes)
    }

    /// A call from glibc's loader or from `__libc_start_main` into an initializer: the callee is
    /// in another object than the caller, not in the loader, not valgrind's own preload object,
    /// and callgrind knows its object (`_init` in `.init` shows as `???`).
    static func isInitializerCall(_ call: CallgrindProfile.Call, loaderObjects: Set<String>) -> Bool {
        let caller = call.caller.name
        let fromLoader = loaderObjects.contains(call.caller.object) && loaderCallers.contains(caller)
        let fromLibc =
            caller == "__libc_start_main" || caller.hasPrefix("__libc_start_main@")
            || caller == "__libc_start_main_impl"
            || (caller == "call_init" && !loaderObjects.contains(call.caller.object))
        guard fromLoader || fromLibc else { return false }
        let object = call.callee.object
        return object != call.caller.object && !loaderObjects.contains(object) && !object.isEmpty && object != "???"
            && !fileName(object).hasPrefix("vgpreload_")
    }

    /// `nil` for callgrind's names of code without a symbol (`0x…`), else the name.
    static func named(_ name: String) -> String? {
        name.hasPrefix("0x") ? nil : name
    }

    static func fileName(_ path: String) -> Substring {
        path.split(separator: "/").last ?? Substring(path)
    }

    /// Inclusive instructions and calls per callee, summed over edges and dumps.
    struct Tally {
        struct Sum {
            var instructions: UInt64 = 0
            var calls: UInt64 = 0
        }

        var sums: [CallgrindProfile.Function: Sum] = [:]

        mutating func add(_ call: CallgrindProfile.Call) {
            var sum = sums[call.callee, default: Sum()]
            sum.instructions = sum.instructions.saturatingAdd(call.inclusive)
            sum.calls = sum.calls.saturatingAdd(call.count)
            sums[call.callee] = sum
        }
    }
}

extension ObjectInstructions {
    mutating func add(_ sum: InstructionCountBuilder.Tally.Sum) {
        instructions = instructions.saturatingAdd(sum.instructions)
        calls = calls.saturatingAdd(sum.calls)
    }
}

extension UInt64 {
    /// `self + other`, or `UInt64.max` when that overflows (crafted profiles cannot wrap a sum).
    func saturatingAdd(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
