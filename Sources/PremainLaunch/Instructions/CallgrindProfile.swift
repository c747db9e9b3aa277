/// One callgrind output file (one dump, "part"), reduced to what premain reads: the header,
/// each function's self cost and each caller → callee edge with its call count and inclusive
/// cost, for one event (`Ir`, instructions executed). Costs of a dump cover only the interval
/// since the previous dump, calls still running at a dump included, so the dumps of one run
/// add up: a function's inclusive cost over several dumps is the sum of its edges' costs.
public struct CallgrindProfile: Equatable, Sendable {
    /// A function as callgrind names it: its object (`ob=`, `""` when the file names none) and
    /// its name (`fn=`; `0x…` for code without a symbol).
    public struct Function: Hashable, Sendable, CustomStringConvertible {
        public var object: String
        public var name: String

        public init(object: String, name: String) {
            self.object = object
            self.name = name
        }

        public var description: String { "\(name) in \(object)" }
    }

    /// The calls from one function to another made during the dump's interval.
    public struct Call: Equatable, Sendable {
        public var caller: Function
        public var callee: Function
        /// Calls started in the interval (0 for a call still running from an earlier one).
        public var count: UInt64
        /// Cost spent inside those calls during the interval, callees included.
        public var inclusive: UInt64

        public init(caller: Function, callee: Function, count: UInt64, inclusive: UInt64) {
            self.caller = caller
            self.callee = callee
            self.count = count
            self.inclusive = inclusive
        }
    }

    /// `pid:`; `nil` when absent.
    public var pid: Int32?
    /// `part:`, counted from 1 over the dumps of one process; `nil` when absent.
    public var part: Int?
    /// `cmd:`, the command line as valgrind ran it; `nil` when absent.
    public var command: String?
    /// `desc: Trigger:` why the dump was made ("--dump-before=main", "Program termination");
    /// `nil` when absent.
    public var trigger: String?
    /// `events:`, the event names of the cost columns.
    public var events: [String]
    /// `summary:` for the chosen event; `nil` when absent.
    public var summary: UInt64?
    /// `totals:` for the chosen event; `nil` when absent.
    public var totals: UInt64?
    /// Self (exclusive) cost per function, for the chosen event.
    public var selfCost: [Function: UInt64]
    /// One entry per caller → callee pair, in the order first seen.
    public var calls: [Call]
    /// The sum of all self costs: the dump's whole cost.
    public var cost: UInt64

    public init(
        pid: Int32? = nil, part: Int? = nil, command: String? = nil, trigger: String? = nil,
        events: [String], summary: UInt64? = nil, totals: UInt64? = nil,
        selfCost: [Function: UInt64], calls: [Call], cost: UInt64
    ) {
        self.pid = pid
        self.part = part
        self.command = command
        self.trigger = trigger
        self.events = events
        self.summary = summary
        self.totals = totals
        self.selfCost = selfCost
        self.calls = calls
        self.cost = cost
    }
}

/// A callgrind file that does not follow the format. `line` is 1-based; `nil` for problems of
/// the whole file (no `events:` line, totals that do not add up).
public struct CallgrindFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int?
    /// Lowercase, no trailing period: "cost line before any fn= line".
    public var message: String

    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    /// "line 12: cost line before any fn= line", or the message alone.
    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}
