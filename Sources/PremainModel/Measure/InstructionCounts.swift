/// Instructions one launch executed, counted by valgrind's callgrind. Unlike times, these are
/// exact and repeat from run to run on the same machine with the same environment, so they
/// decide small start-up changes on a noisy CI runner. They are counted under valgrind: its
/// emulated CPU makes glibc pick other string functions than the real CPU would, and its own
/// preload object adds a few hundred instructions; both are the same for two builds compared.
public struct InstructionCounts: Codable, Equatable, Sendable {
    /// From `execve` to the first instruction of `main`; `nil` when `main` was never reached or
    /// the program has no symbol named `main` (a stripped executable).
    public var beforeMain: UInt64?
    /// From `execve` to the first `write`/`writev` call whose system call goes to fd 1 or 2;
    /// `nil` when the program wrote nothing there (or `notes` says why it could not be placed).
    public var toFirstOutput: UInt64?
    /// From `execve` to the exit of the launched process (its own threads included, not the
    /// processes it forks or execs).
    public var total: UInt64
    /// Per loaded object, the instructions of its static initializers before `main`, largest
    /// first. `[]` for static executables, whose initializers cannot be told from libc's set-up.
    public var objects: [ObjectInstructions]
    /// Per function run before `main`: each static initializer, each Swift lazy-global
    /// initializer (`…WZ`) and default-argument generator (`…fA_`), largest first.
    public var functions: [FunctionInstructions]
    /// The exit status of the counted run (valgrind passes the program's on).
    public var exitStatus: Int32
    /// Runs counted; the figures are the first run's.
    public var runs: Int
    /// Runs whose `beforeMain`, `toFirstOutput` or `total` differed from the first run's;
    /// 0 when every run agreed.
    public var differingRuns: Int
    /// What limits the figures, one sentence each; `[]` when nothing does.
    public var notes: [String]

    public init(
        beforeMain: UInt64?, toFirstOutput: UInt64?, total: UInt64, objects: [ObjectInstructions],
        functions: [FunctionInstructions], exitStatus: Int32 = 0, runs: Int = 1, differingRuns: Int = 0,
        notes: [String] = []
    ) {
        self.beforeMain = beforeMain
        self.toFirstOutput = toFirstOutput
        self.total = total
        self.objects = objects
        self.functions = functions
        self.exitStatus = exitStatus
        self.runs = runs
        self.differingRuns = differingRuns
        self.notes = notes
    }

    enum CodingKeys: String, CodingKey {
        case beforeMain, toFirstOutput, total, objects, functions, exitStatus, runs, differingRuns, notes
    }

    /// Reads counts as premain writes them; only `total` is required: a hand-written report may
    /// leave out the rest (no objects, functions or notes, exit status 0, one run).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            beforeMain: try container.decodeIfPresent(UInt64.self, forKey: .beforeMain),
            toFirstOutput: try container.decodeIfPresent(UInt64.self, forKey: .toFirstOutput),
            total: try container.decode(UInt64.self, forKey: .total),
            objects: try container.decodeIfPresent([ObjectInstructions].self, forKey: .objects) ?? [],
            functions: try container.decodeIfPresent([FunctionInstructions].self, forKey: .functions) ?? [],
            exitStatus: try container.decodeIfPresent(Int32.self, forKey: .exitStatus) ?? 0,
            runs: try container.decodeIfPresent(Int.self, forKey: .runs) ?? 1,
            differingRuns: try container.decodeIfPresent(Int.self, forKey: .differingRuns) ?? 0,
            notes: try container.decodeIfPresent([String].self, forKey: .notes) ?? [])
    }
}

/// The static initializers of one loaded object, as the loader's `call_init` (`_dl_init`) and,
/// for the executable, libc's `__libc_start_main` called them.
public struct ObjectInstructions: Codable, Equatable, Sendable {
    /// The object's path as it was mapped.
    public var object: String
    /// Inclusive instructions of all its initializer calls (`.preinit_array`, `DT_INIT`'s
    /// target when callgrind can name its object, `.init_array`).
    public var instructions: UInt64
    /// Initializer calls made.
    public var calls: UInt64

    public init(object: String, instructions: UInt64, calls: UInt64) {
        self.object = object
        self.instructions = instructions
        self.calls = calls
    }
}

/// One function run before `main`, with everything it called.
public struct FunctionInstructions: Codable, Equatable, Sendable {
    /// What it is: a static initializer (by the trace's classification) or a Swift lazy global
    /// or default argument.
    public var kind: TracedFunctionKind
    /// Path of the object holding it.
    public var object: String
    /// The symbol as callgrind named it (mangled), or `0x…` (its offset) when it has none.
    public var symbol: String
    /// The readable form of a C++ or Swift symbol; `nil` when it is not mangled.
    public var demangled: String?
    /// Inclusive instructions of all its calls before `main`.
    public var instructions: UInt64
    /// Calls before `main`.
    public var calls: UInt64

    public init(
        kind: TracedFunctionKind, object: String, symbol: String, demangled: String?,
        instructions: UInt64, calls: UInt64
    ) {
        self.kind = kind
        self.object = object
        self.symbol = symbol
        self.demangled = demangled
        self.instructions = instructions
        self.calls = calls
    }

    /// The demangled name when there is one, else the symbol.
    public var displayName: String { demangled ?? symbol }
}
