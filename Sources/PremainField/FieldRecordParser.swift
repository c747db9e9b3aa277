import LosslessText

/// One parsed line of a spool file (docs/field-record.md, version 1): only the keys a field
/// report needs, read straight from the bytes (no `String` per field; the executable, its
/// build ID and its scenario stay byte ranges of the line until the caller interns them).
struct FieldLine {
    enum Kind { case launch, mark, other }

    var kind = Kind.other
    var pid: Int64?
    var uid: Int64?
    var host: UInt64?
    var boot: UInt64?
    var exe: Range<Int>?
    var buildId: Range<Int>?
    var arg1: Range<Int>?
    var clock: FieldClockSourceByte?
    var t0: Int64?
    var version: Int64?
    var consistent: Int64?
    var main: Int64?
    var objects: Int64?
    var readBytes: Int64?
    var majorFaults: Int64?
    var minorFaults: Int64?
    var time: Int64?
    var name: Range<Int>?
}

/// `t0src` without a `String`.
enum FieldClockSourceByte: UInt8 { case env, schedstat, none }

/// Parses one record line.
enum FieldRecordParser {
    /// `premain-record/1 `.
    static let versionWord: [UInt8] = Array("premain-record/1 ".utf8)

    /// The line `line` (without its `\n`); `nil` when it is malformed: another version word, a
    /// field without `=`, a malformed number, or a required key missing for its kind. A line of
    /// another kind comes back with `kind == .other`.
    static func parse(_ line: UnsafeBufferPointer<UInt8>) -> FieldLine? {
        let count = line.count
        let word = versionWord.count
        guard count > word else { return nil }
        for index in 0..<word where line[index] != versionWord[index] { return nil }
        var record = FieldLine()
        var kindSeen = false
        var position = word
        while position < count {
            var end = position
            while end < count && line[end] != 0x20 { end += 1 }
            if end == position {  // two spaces in a row
                return nil
            }
            var equals = position
            while equals < end && line[equals] != 0x3D { equals += 1 }
            guard equals < end, equals > position else { return nil }
            let value = (equals + 1)..<end
            if !assign(line, key: position..<equals, value: value, to: &record, kindSeen: &kindSeen) { return nil }
            position = end + 1
        }
        guard kindSeen else { return nil }
        switch record.kind {
        case .launch:
            guard record.pid != nil, record.uid != nil, record.host != nil, record.boot != nil, record.exe != nil,
                let clock = record.clock, record.version != nil, record.consistent != nil, record.main != nil,
                record.objects != nil, record.majorFaults != nil, record.minorFaults != nil
            else { return nil }
            if clock != .none && record.t0 == nil { return nil }
        case .mark:
            guard record.pid != nil, record.boot != nil, record.time != nil, record.name != nil else { return nil }
        case .other:
            break
        }
        return record
    }

    /// Stores the value of a known key; `false` when its value is malformed. Unknown keys are ignored.
    static func assign(
        _ line: UnsafeBufferPointer<UInt8>, key: Range<Int>, value: Range<Int>, to record: inout FieldLine,
        kindSeen: inout Bool
    ) -> Bool {
        func isKey(_ name: StaticString) -> Bool {
            guard name.utf8CodeUnitCount == key.count else { return false }
            let bytes = name.utf8Start
            for offset in 0..<key.count where line[key.lowerBound + offset] != bytes[offset] { return false }
            return true
        }
        func number() -> Int64? { decimal(line, value) }
        switch line[key.lowerBound] {
        case 0x61:  // a
            if isKey("arg1") { record.arg1 = value }
        case 0x62:  // b
            if isKey("boot") {
                guard let hex = hexadecimal(line, value) else { return false }
                record.boot = hex
            } else if isKey("buildid") {
                record.buildId = value
            }
        case 0x63:  // c
            if isKey("consistent") {
                guard let number = number() else { return false }
                record.consistent = number
            }
        case 0x65:  // e
            if isKey("exe") { record.exe = value }
        case 0x68:  // h
            if isKey("host") {
                guard let hex = hexadecimal(line, value) else { return false }
                record.host = hex
            }
        case 0x6B:  // k
            if isKey("kind") {
                kindSeen = true
                record.kind = matches(line, value, "launch") ? .launch : matches(line, value, "mark") ? .mark : .other
            }
        case 0x6D:  // m
            if isKey("main") {
                guard let number = number() else { return false }
                record.main = number
            } else if isKey("majflt") {
                guard let number = number() else { return false }
                record.majorFaults = number
            } else if isKey("minflt") {
                guard let number = number() else { return false }
                record.minorFaults = number
            }
        case 0x6E:  // n
            if isKey("name") { record.name = value }
        case 0x6F:  // o
            if isKey("objects") {
                guard let number = number() else { return false }
                record.objects = number
            }
        case 0x70:  // p
            if isKey("pid") {
                guard let number = number() else { return false }
                record.pid = number
            }
        case 0x72:  // r
            if isKey("rbytes") {
                guard let number = number() else { return false }
                record.readBytes = number
            }
        case 0x74:  // t
            if isKey("t0") {
                guard let number = number() else { return false }
                record.t0 = number
            } else if isKey("t0src") {
                if matches(line, value, "env") {
                    record.clock = .env
                } else if matches(line, value, "schedstat") {
                    record.clock = .schedstat
                } else if matches(line, value, "none") {
                    record.clock = FieldClockSourceByte.none
                } else {
                    return false
                }
            } else if isKey("t") {
                guard let number = number() else { return false }
                record.time = number
            }
        case 0x75:  // u
            if isKey("uid") {
                guard let number = number() else { return false }
                record.uid = number
            }
        case 0x76:  // v
            if isKey("version") {
                guard let number = number() else { return false }
                record.version = number
            }
        default:
            break
        }
        return true
    }

    static func matches(_ line: UnsafeBufferPointer<UInt8>, _ value: Range<Int>, _ word: StaticString) -> Bool {
        guard word.utf8CodeUnitCount == value.count else { return false }
        let bytes = word.utf8Start
        for offset in 0..<value.count where line[value.lowerBound + offset] != bytes[offset] { return false }
        return true
    }

    /// A decimal of at most 18 digits (no sign); `nil` otherwise.
    static func decimal(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int64? {
        guard !range.isEmpty, range.count <= 18 else { return nil }
        var result: Int64 = 0
        for index in range {
            let digit = line[index] &- 0x30
            guard digit < 10 else { return nil }
            result = result * 10 + Int64(digit)
        }
        return result
    }

    /// Exactly 16 hex digits (either case).
    static func hexadecimal(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UInt64? {
        guard range.count == 16 else { return nil }
        return HexDigits.value(line[range])
    }

    /// The bytes of an escaped value (`%XX` decoded); `nil` when a `%` is not followed by two
    /// hex digits.
    static func unescape(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count)
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = line[index]
            if byte == 0x25 {
                guard index + 2 < range.upperBound, let high = hexDigit(line[index + 1]),
                    let low = hexDigit(line[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        return bytes
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x61...0x66: return byte - 0x61 + 10
        case 0x41...0x46: return byte - 0x41 + 10
        default: return nil
        }
    }
}
