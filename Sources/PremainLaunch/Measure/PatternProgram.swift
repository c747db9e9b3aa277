/// A `PatternNode` compiled for a Pike VM (Thompson's construction, simulated breadth-first):
/// every thread of the expression advances over the line together, one character at a time,
/// and a state is entered at most once per position. A line of n characters costs at most 4 × `instructions.count` + 1 steps per position, n + 1 positions, whatever the expression (`(a|a)+$` on a line
/// of `a`s included), and the run gives up at a deadline; no expression can backtrack.
struct PatternProgram: Sendable {
    enum Instruction: Equatable, Sendable {
        case character(Character)
        /// A character whose lowercase form is this (`(?i)`).
        case caseless(String)
        case any(newline: Bool)
        /// An index into `classes`.
        case set(Int)
        case assertion(PatternAssertion)
        /// Go on at both.
        case split(Int, Int)
        case jump(Int)
        case match
    }

    /// Programs longer than this are refused (repetition counts expand them).
    static let instructionLimit = 10_000
    /// Steps between two looks at the clock.
    static let stepsPerClockCheck = 4096

    private(set) var instructions: [Instruction] = []
    private(set) var classes: [PatternClass] = []
    /// True when some instruction compares lowercase forms.
    private var caseless = false

    /// Throws when the program would be longer than `instructionLimit`.
    init(_ node: PatternNode, source: String) throws(PatternError) {
        try emit(node, source: source)
        instructions.append(.match)
    }

    private mutating func append(_ instruction: Instruction, source: String) throws(PatternError) -> Int {
        guard instructions.count < Self.instructionLimit else {
            throw PatternError(
                message:
                    "'\(source)': the expression expands to more than \(Self.instructionLimit) states (its repetition counts); use smaller counts"
            )
        }
        instructions.append(instruction)
        return instructions.count - 1
    }

    private mutating func emit(_ node: PatternNode, source: String) throws(PatternError) {
        switch node {
        case .empty:
            break
        case .character(let c, let caseless):
            let lower = c.lowercased()
            if caseless, lower != c.uppercased() {
                self.caseless = true
                _ = try append(.caseless(lower), source: source)
            } else {
                _ = try append(.character(c), source: source)
            }
        case .any(let newline):
            _ = try append(.any(newline: newline), source: source)
        case .set(let set):
            classes.append(set)
            _ = try append(.set(classes.count - 1), source: source)
        case .assertion(let assertion):
            _ = try append(.assertion(assertion), source: source)
        case .sequence(let items):
            for item in items { try emit(item, source: source) }
        case .choice(let alternatives):
            var jumps: [Int] = []
            for (index, alternative) in alternatives.enumerated() {
                if index == alternatives.count - 1 {
                    try emit(alternative, source: source)
                } else {
                    let split = try append(.split(0, 0), source: source)
                    try emit(alternative, source: source)
                    jumps.append(try append(.jump(0), source: source))
                    instructions[split] = .split(split + 1, instructions.count)
                }
            }
            for jump in jumps { instructions[jump] = .jump(instructions.count) }
        case .repetition(let item, let minimum, let maximum):
            for _ in 0..<minimum { try emit(item, source: source) }
            if let maximum {
                // `e?` nested `maximum - minimum` times: skipping one copy skips the rest.
                var splits: [Int] = []
                for _ in minimum..<max(minimum, maximum) {
                    splits.append(try append(.split(0, 0), source: source))
                    try emit(item, source: source)
                }
                for split in splits { instructions[split] = .split(split + 1, instructions.count) }
            } else {
                let loop = try append(.split(0, 0), source: source)
                try emit(item, source: source)
                _ = try append(.jump(loop), source: source)
                instructions[loop] = .split(loop + 1, instructions.count)
            }
        }
    }

    /// How a run over one line ended.
    enum Outcome: Equatable, Sendable {
        case matched
        case noMatch
        /// The clock passed the deadline first.
        case deadlinePassed
    }

    /// Whether some part of `line` matches. Looks at the clock every `stepsPerClockCheck` steps
    /// (and once first) when `deadlineNs` is given; adds the steps taken to `steps`.
    func run(_ line: String, deadlineNs: UInt64?, steps: inout Int) -> Outcome {
        let count = instructions.count
        // Threads waiting at the current position (their next instruction), and per-position marks.
        var pending: [Int] = []
        var consuming: [Int] = []
        var stack: [Int] = []
        var visited = [Int](repeating: -1, count: count)
        var queued = [Int](repeating: -1, count: count)
        var characters = line.makeIterator()
        var previous: Character?
        var current = characters.next()
        var following = current == nil ? nil : characters.next()
        var position = 0
        var nextClockCheck = steps
        while true {
            if let deadlineNs, steps >= nextClockCheck {
                if MonotonicClock.nowNs() >= deadlineNs { return .deadlinePassed }
                nextClockCheck = steps + Self.stepsPerClockCheck
            }
            // The closure of the waiting threads plus a new one at the start (a match may begin
            // anywhere): the consuming instructions reachable here.
            consuming.removeAll(keepingCapacity: true)
            stack.removeAll(keepingCapacity: true)
            stack.append(0)
            stack.append(contentsOf: pending.reversed())
            while let pc = stack.popLast() {
                steps += 1
                guard visited[pc] != position else { continue }
                visited[pc] = position
                switch instructions[pc] {
                case .match: return .matched
                case .jump(let target): stack.append(target)
                case .split(let first, let second):
                    stack.append(second)
                    stack.append(first)
                case .assertion(let assertion):
                    if holds(assertion, previous: previous, current: current, last: following == nil) {
                        stack.append(pc + 1)
                    }
                case .character, .caseless, .any, .set:
                    consuming.append(pc)
                }
            }
            guard let c = current else { return .noMatch }
            let lower = caseless ? c.lowercased() : ""
            pending.removeAll(keepingCapacity: true)
            for pc in consuming {
                steps += 1
                if accepts(instructions[pc], c, lower: lower), queued[pc + 1] != position {
                    queued[pc + 1] = position
                    pending.append(pc + 1)
                }
            }
            previous = c
            current = following
            following = current == nil ? nil : characters.next()
            position += 1
        }
    }

    private func accepts(_ instruction: Instruction, _ c: Character, lower: String) -> Bool {
        switch instruction {
        case .character(let expected): return c == expected
        case .caseless(let expected): return lower == expected
        case .any(let newline): return newline || !c.isNewline
        case .set(let index): return classes[index].contains(c)
        case .assertion, .split, .jump, .match: return false
        }
    }

    /// Whether `assertion` holds between `previous` and `current`; `last` when `current` is the
    /// line's last character (or the end).
    private func holds(_ assertion: PatternAssertion, previous: Character?, current: Character?, last: Bool) -> Bool {
        switch assertion {
        case .inputStart: return previous == nil
        case .inputEnd: return current == nil
        case .inputEndBeforeNewline: return current == nil || (last && current?.isNewline == true)
        case .lineStart: return previous == nil || previous?.isNewline == true
        case .lineEnd: return current == nil || current?.isNewline == true
        case .wordBoundary, .notWordBoundary:
            let before = previous.map { CharacterProperty.word.holds(for: $0) } ?? false
            let after = current.map { CharacterProperty.word.holds(for: $0) } ?? false
            return (before != after) == (assertion == .wordBoundary)
        }
    }
}
