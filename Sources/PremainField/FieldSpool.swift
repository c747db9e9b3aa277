import LosslessText
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One launch record, compact: what the joining rules and the statistics need.
struct FieldLaunch {
    /// Index into `FieldRecords.groups` (executable × build ID × first argument).
    var group: Int32
    var clock: FieldClockSourceByte
    var pid: Int64
    var uid: Int64
    var host: UInt64
    var boot: UInt64
    /// Birth; meaningful when `clock != .none`.
    var t0: Int64
    var version: Int64
    var main: Int64
    var majorFaults: Int64
    /// -1 when the record has no `rbytes`.
    var readBytes: Int64
}

/// One `kind=mark` record.
struct FieldMarkRecord {
    var pid: Int64
    var boot: UInt64
    var time: Int64
    /// Index into `FieldRecords.markNames`.
    var name: Int32
}

/// Executable × build ID × scenario, decoded once per distinct combination.
struct FieldGroup {
    var executable: String
    var buildId: String?
    var scenario: String?
}

/// Everything read from spool folders, before the joining rules.
struct FieldRecords {
    var launches: [FieldLaunch] = []
    var marks: [FieldMarkRecord] = []
    var groups: [FieldGroup] = []
    var markNames: [String] = []
    var malformed = 0
    var otherKind = 0
    var dropped = 0
    /// Last-write times (seconds since the epoch) of the `.records` files read.
    var fileWrites: [Int] = []
}

/// What went wrong reading a spool folder: one line naming the folder or file.
public struct FieldReadError: Error, Equatable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(TextSafety.display(path)): \(message)" }
}

/// Reads the `*.records` and `*.drops` files of spool folders in chunks of 4 MiB, line by line,
/// without a `String` per field: keys are compared as bytes, numbers parsed in place, and the
/// executable × build ID × scenario of a launch interned by a hash of its bytes, decoded once.
struct FieldSpoolReader {
    var records = FieldRecords()
    /// Hash of the group's escaped bytes → candidate group indices, with their bytes to compare.
    private var groupIndex: [Int: [(bytes: [UInt8], group: Int32)]] = [:]
    /// The escaped bytes of each mark name, by index (few names: a linear search).
    private var markKeys: [[UInt8]] = []

    /// Reads every `*.records` and `*.drops` file of `folder` (not its subfolders).
    mutating func read(folder: String) throws(FieldReadError) {
        let names: [String]
        switch LocalFiles.entries(of: folder) {
        case .success(let found): names = found.sorted()
        case .failure(let error):
            throw FieldReadError(path: folder, message: "cannot list the folder: \(error.message)")
        }
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        for name in names where name.hasSuffix(".drops") {
            if let info = LocalFiles.status(base + name), info.st_mode & S_IFMT == S_IFREG {
                records.dropped += Int(info.st_size)
            }
        }
        // About 300 bytes a launch record: room for the folder's launches, reserved once.
        let bytes = names.filter { $0.hasSuffix(".records") }.reduce(0) { total, name in
            total + Int(LocalFiles.status(base + name)?.st_size ?? 0)
        }
        records.launches.reserveCapacity(records.launches.count + min(bytes / 300, 50_000_000))
        for name in names where name.hasSuffix(".records") {
            try read(file: base + name)
        }
    }

    /// Reads one records file.
    mutating func read(file path: String) throws(FieldReadError) {
        let descriptor = LocalFiles.openForReading(path, regularOnly: true)
        guard descriptor >= 0 else {
            throw FieldReadError(path: path, message: "cannot read: \(String(cString: strerror(errno)).lowercased())")
        }
        defer { close(descriptor) }
        if let info = LocalFiles.status(descriptor: descriptor) { records.fileWrites.append(Int(info.st_mtim.tv_sec)) }
        let chunk = 4 << 20
        var buffer = [UInt8](repeating: 0, count: chunk + 8192)
        var kept = 0  // bytes of an unfinished line at the start of the buffer
        // A whole buffer without a newline is no record (a record is at most 4096 bytes): it
        // counts as one malformed line, and the bytes up to the next newline are skipped, so a
        // foreign file cannot make the reader hold it all.
        var skipping = false
        while true {
            if kept == buffer.count {
                records.malformed += 1
                skipping = true
                kept = 0
            }
            let got = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let start = raw.baseAddress else { return -1 }
                var result: Int
                repeat {
                    result = Glibc.read(descriptor, start + kept, raw.count - kept)
                } while result < 0
                    && errno == EINTR
                return result
            }
            guard got >= 0 else {
                throw FieldReadError(
                    path: path, message: "read failed: \(String(cString: strerror(errno)).lowercased())")
            }
            let filled = kept + got
            if got == 0 {
                // A last line without its newline was cut short: a torn or foreign line.
                if filled > 0 && !skipping { records.malformed += 1 }
                return
            }
            let consumed = buffer.withUnsafeBufferPointer { all -> Int in
                guard let base = all.baseAddress else { return 0 }
                var lineStart = 0
                if skipping {
                    guard let found = memchr(base, 0x0A, filled) else { return filled }
                    lineStart = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
                    skipping = false
                }
                while lineStart < filled, let found = memchr(base + lineStart, 0x0A, filled - lineStart) {
                    let end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    if end > lineStart { consume(UnsafeBufferPointer(rebasing: all[lineStart..<end])) }
                    lineStart = end + 1
                }
                return lineStart
            }
            kept = filled - consumed
            if kept > 0 && consumed > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    guard let start = raw.baseAddress else { return }
                    memmove(start, start + consumed, kept)
                }
            }
        }
    }

    /// Reads the lines of `text` as if they were one records file (tests, and the bytes of a
    /// file already read).
    mutating func read(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { all in
            var lineStart = 0
            for index in all.indices where all[index] == 0x0A {
                if index > lineStart { consume(UnsafeBufferPointer(rebasing: all[lineStart..<index])) }
                lineStart = index + 1
            }
            if lineStart < all.count { records.malformed += 1 }
        }
    }

    private mutating func consume(_ line: UnsafeBufferPointer<UInt8>) {
        guard let parsed = FieldRecordParser.parse(line) else {
            records.malformed += 1
            return
        }
        switch parsed.kind {
        case .other:
            records.otherKind += 1
        case .mark:
            guard let pid = parsed.pid, let boot = parsed.boot, let time = parsed.time, let name = parsed.name,
                let nameIndex = internMark(line, name)
            else {
                records.malformed += 1
                return
            }
            records.marks.append(FieldMarkRecord(pid: pid, boot: boot, time: time, name: nameIndex))
        case .launch:
            guard let exe = parsed.exe, let clock = parsed.clock, let pid = parsed.pid, let uid = parsed.uid,
                let host = parsed.host, let boot = parsed.boot, let version = parsed.version, let main = parsed.main,
                let majorFaults = parsed.majorFaults,
                let group = internGroup(line, exe: exe, buildId: parsed.buildId, arg1: parsed.arg1)
            else {
                records.malformed += 1
                return
            }
            records.launches.append(
                FieldLaunch(
                    group: group, clock: clock, pid: pid, uid: uid, host: host, boot: boot, t0: parsed.t0 ?? 0,
                    version: version, main: main, majorFaults: majorFaults, readBytes: parsed.readBytes ?? -1))
        }
    }

    /// The group of these byte ranges, made on first sight; `nil` when a value's escapes are malformed.
    private mutating func internGroup(
        _ line: UnsafeBufferPointer<UInt8>, exe: Range<Int>, buildId: Range<Int>?, arg1: Range<Int>?
    ) -> Int32? {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[exe])))
        hasher.combine(0x20 as UInt8)
        if let buildId { hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[buildId]))) }
        hasher.combine(0x20 as UInt8)
        if let arg1 {
            hasher.combine(1 as UInt8)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[arg1])))
        }
        let hash = hasher.finalize()
        let key = { () -> [UInt8] in
            var bytes: [UInt8] = []
            bytes.append(contentsOf: line[exe])
            bytes.append(0x20)
            if let buildId { bytes.append(contentsOf: line[buildId]) }
            bytes.append(0x20)
            if let arg1 {
                bytes.append(1)
                bytes.append(contentsOf: line[arg1])
            }
            return bytes
        }
        if let candidates = groupIndex[hash] {
            for candidate in candidates where Self.equal(candidate.bytes, line, exe, buildId, arg1) {
                return candidate.group
            }
        }
        guard let executable = FieldRecordParser.unescape(line, exe) else { return nil }
        var scenario: String? = nil
        if let arg1 {
            guard let bytes = FieldRecordParser.unescape(line, arg1) else { return nil }
            scenario = LosslessUTF8.string(bytes)
        }
        var build: String? = nil
        if let buildId {
            guard let bytes = FieldRecordParser.unescape(line, buildId) else { return nil }
            build = LosslessUTF8.string(bytes)
        }
        let group = Int32(records.groups.count)
        records.groups.append(
            FieldGroup(executable: LosslessUTF8.string(executable), buildId: build, scenario: scenario))
        groupIndex[hash, default: []].append((key(), group))
        return group
    }

    private static func equal(
        _ stored: [UInt8], _ line: UnsafeBufferPointer<UInt8>, _ exe: Range<Int>, _ buildId: Range<Int>?,
        _ arg1: Range<Int>?
    ) -> Bool {
        let length = exe.count + 2 + (buildId?.count ?? 0) + (arg1.map { $0.count + 1 } ?? 0)
        guard stored.count == length else { return false }
        var offset = 0
        for index in exe {
            if stored[offset] != line[index] { return false }
            offset += 1
        }
        if stored[offset] != 0x20 { return false }
        offset += 1
        for index in buildId ?? 0..<0 {
            if stored[offset] != line[index] { return false }
            offset += 1
        }
        if stored[offset] != 0x20 { return false }
        offset += 1
        guard let arg1 else { return offset == stored.count }
        if stored[offset] != 1 { return false }
        offset += 1
        for index in arg1 {
            if stored[offset] != line[index] { return false }
            offset += 1
        }
        return true
    }

    private mutating func internMark(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int32? {
        for (index, key) in markKeys.enumerated() where key.count == range.count {
            var same = true
            for offset in 0..<key.count where key[offset] != line[range.lowerBound + offset] {
                same = false
                break
            }
            if same { return Int32(index) }
        }
        guard let bytes = FieldRecordParser.unescape(line, range) else { return nil }
        let index = Int32(records.markNames.count)
        records.markNames.append(LosslessUTF8.string(bytes))
        var raw: [UInt8] = []
        raw.append(contentsOf: line[range])
        markKeys.append(raw)
        return index
    }
}
