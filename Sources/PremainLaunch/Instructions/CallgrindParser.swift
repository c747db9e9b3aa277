import LosslessText

/// Reads callgrind's output format (valgrind's "Callgrind Format Specification", version 1):
/// header lines `key: value` (`events:`, `positions:`, `summary:`, `totals:`, `pid:`, `part:`,
/// `cmd:`, `desc: Trigger:`), position lines `ob=` `fl=` `fi=` `fe=` `fn=` `cob=` `cfi=` `cfl=`
/// `cfn=` with name compression (`(id) name` defines, `(id)` refers), `calls=` lines each
/// followed by the cost line of the call, and cost lines of subpositions (absolute, `+N`, `-N`,
/// `*`, decimal or `0x` hex) then costs. The input is untrusted: a malformed line is a
/// `CallgrindFormatError` naming it, never a trap.
public enum CallgrindParser {
    /// Parses one part (one dump file) and keeps the costs of `event`. Throws when a line is
    /// malformed, when `event` is not among the file's events, when the file holds several parts
    /// (`--combine-dumps`), or when `totals:` does not match the cost lines.
    public static func parse(_ bytes: [UInt8], event: String = "Ir") throws(CallgrindFormatError) -> CallgrindProfile {
        var state = ParseState(event: event)
        var lineNumber = 0
        var start = 0
        while start < bytes.count || (start == bytes.count && lineNumber == 0) {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            lineNumber += 1
            var line = bytes[start..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            do throws(CallgrindFormatError) {
                try state.read(line)
            } catch {
                throw CallgrindFormatError(line: lineNumber, error.message)
            }
            start = end + 1
        }
        if state.pendingCall != nil {
            throw CallgrindFormatError(line: lineNumber, "calls= line at the end of the file without its cost line")
        }
        return try state.profile()
    }

    /// Parses text; see `parse(_:event:)` on bytes.
    public static func parse(_ text: String, event: String = "Ir") throws(CallgrindFormatError) -> CallgrindProfile {
        try parse(Array(text.utf8), event: event)
    }
}

/// The reader's state between lines. Errors thrown here carry no line number; `parse` adds it.
private struct ParseState {
    typealias Line = ArraySlice<UInt8>

    /// Interned names: index into `objects` / `functionNames`.
    struct Key: Hashable {
        var object: Int
        var function: Int
    }

    struct CallKey: Hashable {
        var caller: Key
        var callee: Key
    }

    let event: String
    var eventIndex: Int?
    var events: [String]?
    var positionCount = 1
    var pid: Int32?
    var part: Int?
    var command: String?
    var trigger: String?
    var summaryLine: [UInt64]?
    var totalsLine: [UInt64]?
    var sawBody = false

    /// Object names (`ob=`, `cob=`; index 0 is the unnamed object), function names (`fn=`,
    /// `cfn=`) and the ids of file names (`fl=`, `fi=`, `fe=`, `cfi=`, `cfl=`), each with its own
    /// id space.
    var objects = NameTable(names: [""])
    var functions = NameTable()
    var files = NameTable()

    var currentObject = 0
    var currentFunction: Int?
    var calledObject: Int?
    var calledFunction: Int?
    var pendingCall: (callee: Key, count: UInt64)?
    var skipPositionLine = false

    var selfCost: [Key: UInt64] = [:]
    var callIndex: [CallKey: Int] = [:]
    var calls: [(key: CallKey, count: UInt64, inclusive: UInt64)] = []

    init(event: String) {
        self.event = event
    }

    mutating func read(_ line: Line) throws(CallgrindFormatError) {
        if let call = pendingCall {
            pendingCall = nil
            guard isCostLine(line) else { throw problem("calls= line not followed by a cost line") }
            let inclusive = try cost(of: line)
            try addCall(to: call.callee, count: call.count, inclusive: inclusive)
            calledObject = nil
            calledFunction = nil
            return
        }
        if skipPositionLine {
            skipPositionLine = false
            guard isCostLine(line) else { throw problem("jump line not followed by a position line") }
            _ = try costs(of: line)
            return
        }
        guard let first = line.first else { return }
        if first == UInt8(ascii: "#") { return }
        if isCostLine(line) {
            guard let function = currentFunction else { throw problem("cost line before any fn= line") }
            let value = try cost(of: line)
            let key = Key(object: currentObject, function: function)
            let (sum, overflow) = selfCost[key, default: 0].addingReportingOverflow(value)
            guard !overflow else { throw problem("cost overflows 64 bits") }
            selfCost[key] = sum
            sawBody = true
            return
        }
        guard let separator = line.firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: ":") }) else {
            throw problem("unrecognized line \(quoted(line))")
        }
        let key = String(decoding: line[line.startIndex..<separator], as: UTF8.self)
        let value = line[line.index(after: separator)...]
        if line[separator] == UInt8(ascii: "=") {
            try readSpecification(key, value)
        } else {
            try readHeader(key, trimmed(value))
        }
    }

    // MARK: position specifications and calls

    mutating func readSpecification(_ key: String, _ value: Line) throws(CallgrindFormatError) {
        sawBody = true
        switch key {
        case "ob":
            currentObject = try objects.intern(value)
        case "cob":
            calledObject = try objects.intern(value)
        case "fn":
            currentFunction = try functions.intern(value)
            calledObject = nil
            calledFunction = nil
        case "cfn":
            calledFunction = try functions.intern(value)
        case "fl", "fi", "fe", "cfi", "cfl":
            _ = try files.intern(value)
        case "calls":
            guard currentFunction != nil else { throw problem("calls= line before any fn= line") }
            guard let callee = calledFunction else { throw problem("calls= line without a cfn= line before it") }
            let fields = value.split(whereSeparator: Self.isSpace)
            guard let countField = fields.first, let count = Self.number(countField) else {
                throw problem("calls= needs a call count, not \(quoted(value))")
            }
            for position in fields.dropFirst() where !Self.isSubposition(position) {
                throw problem("bad target position \(quoted(position)) in calls=")
            }
            pendingCall = (Key(object: calledObject ?? currentObject, function: callee), count)
        case "jump", "jcnd":
            skipPositionLine = true
        default:
            throw problem("unknown specification \(quoted(Array(key.utf8)[...]))=")
        }
    }

    mutating func addCall(to callee: Key, count: UInt64, inclusive: UInt64) throws(CallgrindFormatError) {
        guard let function = currentFunction else { throw problem("call before any fn= line") }
        let key = CallKey(caller: Key(object: currentObject, function: function), callee: callee)
        if let index = callIndex[key] {
            let (calls, overflowCalls) = self.calls[index].count.addingReportingOverflow(count)
            let (cost, overflowCost) = self.calls[index].inclusive.addingReportingOverflow(inclusive)
            guard !overflowCalls && !overflowCost else { throw problem("call cost overflows 64 bits") }
            self.calls[index].count = calls
            self.calls[index].inclusive = cost
        } else {
            callIndex[key] = self.calls.count
            self.calls.append((key, count, inclusive))
        }
    }

    // MARK: header lines

    mutating func readHeader(_ key: String, _ value: Line) throws(CallgrindFormatError) {
        switch key {
        case "events":
            guard events == nil else {
                throw problem(
                    sawBody
                        ? "a second part in one file (--combine-dumps) is not supported"
                        : "a second events: line")
            }
            let names = value.split(whereSeparator: Self.isSpace).map { String(decoding: $0, as: UTF8.self) }
            guard !names.isEmpty else { throw problem("events: names no event") }
            guard let index = names.firstIndex(of: event) else {
                throw problem("events: has no \(event) event (\(names.joined(separator: " ")))")
            }
            events = names
            eventIndex = index
        case "positions":
            let names = value.split(whereSeparator: Self.isSpace)
            guard !names.isEmpty, names.count <= 3,
                names.allSatisfy({ ["instr", "bb", "line"].contains(String(decoding: $0, as: UTF8.self)) })
            else {
                throw problem("positions: must list instr, bb and/or line, not \(quoted(value))")
            }
            guard !sawBody else { throw problem("positions: after the first cost line") }
            positionCount = names.count
        case "summary":
            summaryLine = try numbers(value, what: "summary:")
        case "totals":
            totalsLine = try numbers(value, what: "totals:")
        case "pid":
            guard let number = Self.decimal(value), let pid = Int32(exactly: number) else {
                throw problem("bad pid: \(quoted(value))")
            }
            self.pid = pid
        case "part":
            guard let number = Self.decimal(value), let part = Int(exactly: number) else {
                throw problem("bad part: \(quoted(value))")
            }
            self.part = part
        case "cmd":
            command = String(decoding: value, as: UTF8.self)
        case "desc":
            let text = String(decoding: value, as: UTF8.self)
            if text.hasPrefix("Trigger:") {
                trigger = String(text.dropFirst("Trigger:".count).drop { $0 == " " || $0 == "\t" })
            }
        default:
            // version:, creator:, thread:, event: and unknown header keys carry nothing premain uses.
            guard key.utf8.allSatisfy({ Self.isDigit($0) || Self.isLetter($0) || $0 == UInt8(ascii: "_") }),
                !key.isEmpty
            else {
                throw problem("unrecognized line \(quoted(Array((key + ":").utf8)[...]))")
            }
        }
    }

    func numbers(_ value: Line, what: String) throws(CallgrindFormatError) -> [UInt64] {
        var result: [UInt64] = []
        for field in value.split(whereSeparator: Self.isSpace) {
            guard let number = Self.number(field) else { throw problem("bad number \(quoted(field)) in \(what)") }
            result.append(number)
        }
        guard !result.isEmpty else { throw problem("\(what) holds no number") }
        return result
    }

    // MARK: cost lines

    /// A cost line starts with a subposition: a digit, `+`, `-` or `*`.
    func isCostLine(_ line: Line) -> Bool {
        guard let first = line.first else { return false }
        return Self.isDigit(first) || first == UInt8(ascii: "+") || first == UInt8(ascii: "-")
            || first == UInt8(ascii: "*")
    }

    /// The cost columns of a cost line, after its `positionCount` subpositions.
    func costs(of line: Line) throws(CallgrindFormatError) -> [UInt64] {
        let fields = line.split(whereSeparator: Self.isSpace)
        guard fields.count >= positionCount else {
            throw problem("cost line \(quoted(line)) has fewer than \(positionCount) positions")
        }
        for position in fields.prefix(positionCount) where !Self.isSubposition(position) {
            throw problem("bad position \(quoted(position))")
        }
        var values: [UInt64] = []
        for field in fields.dropFirst(positionCount) {
            guard let value = Self.number(field) else { throw problem("bad cost \(quoted(field))") }
            values.append(value)
        }
        return values
    }

    /// The chosen event's cost on a cost line (0 when the line stops before its column).
    func cost(of line: Line) throws(CallgrindFormatError) -> UInt64 {
        guard let events, let eventIndex else { throw problem("cost line before the events: line") }
        let values = try costs(of: line)
        guard values.count <= events.count else {
            throw problem("\(values.count) costs for \(events.count) event\(events.count == 1 ? "" : "s")")
        }
        return eventIndex < values.count ? values[eventIndex] : 0
    }

    // MARK: result

    func profile() throws(CallgrindFormatError) -> CallgrindProfile {
        guard let events, let eventIndex else { throw CallgrindFormatError(line: nil, "no events: line") }
        func pick(_ line: [UInt64]?, _ what: String) throws(CallgrindFormatError) -> UInt64? {
            guard let line else { return nil }
            guard line.count <= events.count else {
                throw CallgrindFormatError(line: nil, "\(what) has \(line.count) numbers for \(events.count) events")
            }
            return eventIndex < line.count ? line[eventIndex] : 0
        }
        let summary = try pick(summaryLine, "summary:")
        let totals = try pick(totalsLine, "totals:")
        var sum: UInt64 = 0
        for value in selfCost.values {
            let (added, overflow) = sum.addingReportingOverflow(value)
            guard !overflow else { throw CallgrindFormatError(line: nil, "the costs overflow 64 bits") }
            sum = added
        }
        if let totals, totals != sum {
            throw CallgrindFormatError(line: nil, "totals: \(totals), but the cost lines add up to \(sum)")
        }
        if let summary, summary < sum {
            throw CallgrindFormatError(line: nil, "summary: \(summary) is less than the cost lines' \(sum)")
        }
        func function(_ key: Key) -> CallgrindProfile.Function {
            CallgrindProfile.Function(object: objects.names[key.object], name: functions.names[key.function])
        }
        var byFunction: [CallgrindProfile.Function: UInt64] = [:]
        for (key, value) in selfCost { byFunction[function(key), default: 0] += value }
        let callList = calls.map {
            CallgrindProfile.Call(
                caller: function($0.key.caller), callee: function($0.key.callee),
                count: $0.count, inclusive: $0.inclusive)
        }
        return CallgrindProfile(
            pid: pid, part: part, command: command, trigger: trigger, events: events,
            summary: summary, totals: totals, selfCost: byFunction, calls: callList, cost: sum)
    }

    // MARK: lexical helpers

    func problem(_ message: String) -> CallgrindFormatError {
        CallgrindFormatError(line: nil, message)
    }

    func quoted(_ bytes: Line) -> String {
        Self.quoted(bytes)
    }

    /// At most 60 characters of `bytes` in quotes, for messages.
    static func quoted(_ bytes: Line) -> String {
        let text = String(decoding: bytes.prefix(60), as: UTF8.self)
        return "'\(text)\(bytes.count > 60 ? "…" : "")'"
    }

    func trimmed(_ value: Line) -> Line {
        var result = value.drop { Self.isSpace($0) }
        while let last = result.last, Self.isSpace(last) { result = result.dropLast() }
        return result
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    /// `*`, `+N`, `-N` or an absolute number.
    static func isSubposition(_ field: Line) -> Bool {
        guard let first = field.first else { return false }
        if first == UInt8(ascii: "*") { return field.count == 1 }
        if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { return number(field.dropFirst()) != nil }
        return number(field) != nil
    }

    /// A decimal or `0x` hexadecimal number that fits 64 bits; `nil` otherwise.
    static func number(_ field: Line) -> UInt64? {
        if field.count > 2, field.first == UInt8(ascii: "0"),
            field[field.index(after: field.startIndex)] | 0x20 == UInt8(ascii: "x")
        {
            return hexadecimal(field.dropFirst(2))
        }
        return decimal(field)
    }

    static func decimal(_ field: Line) -> UInt64? {
        guard !field.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in field {
            guard isDigit(byte) else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (plus, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1 && !overflow2 else { return nil }
            value = plus
        }
        return value
    }

    static func hexadecimal(_ field: Line) -> UInt64? {
        guard !field.isEmpty else { return nil }
        return HexDigits.value(field)
    }
}

/// Names of one id space with callgrind's name compression: `(id) name` defines id, `(id)`
/// refers to it, a plain `name` has no id.
private struct NameTable {
    var names: [String] = []
    var index: [String: Int] = [:]
    var ids: [UInt64: Int] = [:]

    init(names: [String] = []) {
        for name in names { _ = add(name) }
    }

    /// The index of the name `value` defines or refers to.
    mutating func intern(_ value: ArraySlice<UInt8>) throws(CallgrindFormatError) -> Int {
        var rest = value.drop { ParseState.isSpace($0) }
        guard rest.first == UInt8(ascii: "("), rest.dropFirst().first.map(ParseState.isDigit) == true else {
            return add(String(decoding: rest, as: UTF8.self))
        }
        rest = rest.dropFirst()
        guard let close = rest.firstIndex(of: UInt8(ascii: ")")),
            let id = ParseState.decimal(rest[rest.startIndex..<close])
        else {
            throw CallgrindFormatError(line: nil, "bad name id in \(ParseState.quoted(value))")
        }
        let after = rest[rest.index(after: close)...].drop { ParseState.isSpace($0) }
        if after.isEmpty {
            guard let known = ids[id] else {
                throw CallgrindFormatError(line: nil, "name id (\(id)) used before it is defined")
            }
            return known
        }
        let interned = add(String(decoding: after, as: UTF8.self))
        ids[id] = interned
        return interned
    }

    mutating func add(_ name: String) -> Int {
        if let existing = index[name] { return existing }
        names.append(name)
        index[name] = names.count - 1
        return names.count - 1
    }
}
