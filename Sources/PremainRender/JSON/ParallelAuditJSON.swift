import Dispatch
import PremainModel
import Synchronization

/// Renders an `AuditReport` as JSON byte-for-byte like `JSONRenderer.render(report)`, but
/// writes the binaries with `AuditJSONWriter` (no `Codable`) on several threads: for folder
/// audits, whose reports run to megabytes.
///
/// Each binary is written alone (pretty-printed, sorted keys) at its place in the `binaries`
/// array, and the rest of the report (whose keys all sort after `binaries`) is
/// encoded once and appended. `stream` hands the bytes over a chunk of binaries at a time.
///
/// `schemaVersion` 2 writes each closure object once, in a top-level `objects` table that the
/// closures refer to by id (`ClosureObjectTable`); 1 writes every closure's objects in full.
public enum ParallelAuditJSON {
    /// The schema a report is written in by default: 2 (the `objects` table) when it holds
    /// several binaries, whose closures share most objects; 1 for one file.
    public static func defaultSchemaVersion(for report: AuditReport) -> Int {
        report.binaries.count > 1 ? 2 : 1
    }

    public static func render(_ report: AuditReport, workers: Int, schemaVersion: Int = 1) throws -> String {
        var out: [UInt8] = []
        _ = try stream(report, workers: workers, schemaVersion: schemaVersion) { (piece: UnsafeRawBufferPointer) in
            out.append(contentsOf: piece)
            return true
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes the same bytes as `render`, in pieces, through `write`: the binaries are encoded
    /// `chunk` at a time (on `workers` threads) and each chunk is handed over before the next is
    /// encoded, so a folder's report is never whole in memory. Stops and returns `false` as soon
    /// as `write` does (it could not write). Throws what encoding throws (a time that is not a
    /// finite number): the report's tail is encoded before anything is written, a binary when
    /// its chunk comes.
    public static func stream(
        _ report: AuditReport, workers: Int, schemaVersion: Int = 1, chunk: Int = 128,
        to write: (UnsafeRawBufferPointer) -> Bool
    ) throws -> Bool {
        let table = schemaVersion >= 2 ? ClosureObjectTable(report.binaries) : nil
        let userInfo: [CodingUserInfoKey: any Sendable] = table.map { [ClosureObjectTable.userInfoKey: $0] } ?? [:]
        let binaries = report.binaries
        guard !binaries.isEmpty else {
            return try Array(JSONRenderer.render(report, userInfo: userInfo).utf8).withUnsafeBytes(write)
        }
        let rest = try tail(report, objects: table)
        let head = StaticString("{\n  \"binaries\" : [\n")
        if workers <= 1 {
            return try streamOnOneThread(binaries, head: head, rest: rest, table: table, userInfo: userInfo, to: write)
        }
        guard head.withUTF8Buffer({ write(UnsafeRawBufferPointer($0)) }) else { return false }
        for start in stride(from: 0, to: binaries.count, by: max(chunk, 1)) {
            let range = start..<min(start + max(chunk, 1), binaries.count)
            let parts = try encode(binaries, range, workers: workers, table: table, userInfo: userInfo)
            var out: [UInt8] = []
            out.reserveCapacity(parts.reduce(0) { $0 + $1.count + 6 })
            for (offset, part) in parts.enumerated() {
                out.append(contentsOf: [0x20, 0x20, 0x20, 0x20])
                out.append(contentsOf: part)
                out.append(
                    contentsOf: range.lowerBound + offset == binaries.count - 1 ? [0x0a] : [UInt8(ascii: ","), 0x0a])
            }
            guard out.withUnsafeBytes(write) else { return false }
        }
        return rest.withUnsafeBytes(write)
    }

    /// `stream` on the calling thread: every binary written into one buffer, which is handed
    /// over each time it holds a megabyte, so no binary's bytes are copied into a part of their
    /// own and then into a chunk.
    private static func streamOnOneThread(
        _ binaries: [BinaryInventory], head: StaticString, rest: [UInt8], table: ClosureObjectTable?,
        userInfo: [CodingUserInfoKey: any Sendable], to write: (UnsafeRawBufferPointer) -> Bool
    ) throws -> Bool {
        var writer = AuditJSONWriter(level: 2, objects: table)
        defer { writer.discard() }
        writer.appendRaw(head)
        for index in binaries.indices {
            writer.appendRaw("    ")
            let start = writer.byteCount
            binaries.withUnsafeBufferPointer { writer.write($0.baseAddress! + index, at: index) }
            if writer.failed {
                // A value the writer cannot write: `Codable` throws its encoding error.
                let bytes = try PrettyJSONEncoder.encode(binaries[index], level: 2, userInfo: userInfo)
                writer.rewind(to: start)
                bytes.withUnsafeBytes { writer.appendRaw($0) }
            }
            writer.appendRaw(index == binaries.count - 1 ? "\n" : ",\n")
            if writer.byteCount >= 1 << 20, !writer.flush(write) { return false }
        }
        rest.withUnsafeBytes { writer.appendRaw($0) }
        return writer.flush(write)
    }

    /// What follows the binaries: the end of the array, then every other field of the report
    /// (whose keys all sort after `binaries`), as `AuditReport.encode(to:)` writes them, sorted,
    /// and the document's end. The `objects` table by `AuditJSONWriter`, the rest by `Codable`.
    private static func tail(_ report: AuditReport, objects: ClosureObjectTable?) throws -> [UInt8] {
        var out = Array("  ]".utf8)
        func member(_ key: StaticString) {
            out.append(contentsOf: [UInt8(ascii: ","), 0x0a, 0x20, 0x20, UInt8(ascii: "\"")])
            key.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(contentsOf: [UInt8(ascii: "\""), 0x20, UInt8(ascii: ":"), 0x20])
        }
        func member<Value: Encodable>(_ key: StaticString, _ value: Value) throws {
            member(key)
            out.append(contentsOf: try PrettyJSONEncoder.encode(value, level: 1))
        }
        try member("errors", report.errors)
        try member("kind", report.kind)
        if let objects {
            member("objects")
            var writer = AuditJSONWriter(level: 1, objects: nil)
            writer.write(objects.records)
            out.append(contentsOf: writer.finish())
        }
        try member("schemaVersion", objects == nil ? 1 : 2)
        if let skipped = report.skipped { try member("skipped", skipped) }
        if let summary = report.summary { try member("summary", summary) }
        try member("tool", report.tool)
        if let warnings = report.warnings { try member("warnings", warnings) }
        out.append(contentsOf: [0x0a, UInt8(ascii: "}"), 0x0a])
        return out
    }

    /// The JSON of `binaries[range]`, in order, each indented for its place in the array
    /// (level 2): `AuditJSONWriter`, or `Codable` for a value the writer cannot write (which
    /// then throws the encoding error).
    private static func encode(
        _ binaries: [BinaryInventory], _ range: Range<Int>, workers: Int,
        table: ClosureObjectTable?, userInfo: [CodingUserInfoKey: any Sendable]
    ) throws -> [[UInt8]] {
        let parts = Mutex<[Int: [UInt8]]>([:])
        let failure = Mutex<String?>(nil)
        let next = Atomic<Int>(range.lowerBound)
        let work: @Sendable (Int) -> Void = { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < range.upperBound else { return }
                do {
                    var writer = AuditJSONWriter(level: 2, objects: table)
                    binaries.withUnsafeBufferPointer { writer.write($0.baseAddress! + index, at: index) }
                    let written = writer.finish()
                    let bytes =
                        writer.failed
                        ? try PrettyJSONEncoder.encode(binaries[index], level: 2, userInfo: userInfo)
                        : written
                    parts.withLock { $0[index] = bytes }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                    return
                }
            }
        }
        let threads = min(max(workers, 1), range.count)
        if threads == 1 { work(0) } else { DispatchQueue.concurrentPerform(iterations: threads, execute: work) }
        if let message = failure.withLock({ $0 }) { throw RenderError(message: message) }
        let encoded = parts.withLock { $0 }
        return try range.map { index in
            guard let part = encoded[index] else { throw RenderError(message: "binary \(index) was not encoded") }
            return part
        }
    }

    struct RenderError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
