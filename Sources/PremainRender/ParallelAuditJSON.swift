import Dispatch
import Synchronization
import PremainModel

/// Renders an `AuditReport` as JSON byte-for-byte like `JSONRenderer.render(report)`, but
/// writes the binaries with `AuditJSONWriter` (no `Codable`) on several threads: for folder
/// audits, whose reports run to megabytes.
///
/// Each binary is written alone (pretty-printed, sorted keys) at its place in the `binaries`
/// array, and the rest of the report (whose keys all sort after `binaries`) is
/// encoded once and appended.
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
        let table = schemaVersion >= 2 ? ClosureObjectTable(report.binaries) : nil
        let userInfo: [CodingUserInfoKey: any Sendable] = table.map { [ClosureObjectTable.userInfoKey: $0] } ?? [:]
        guard !report.binaries.isEmpty else { return try JSONRenderer.render(report, userInfo: userInfo) }
        let binaries = report.binaries
        let parts = Mutex<[Int: [UInt8]]>([:])
        let failure = Mutex<String?>(nil)
        let next = Atomic<Int>(0)
        let encode: @Sendable (Int) -> Void = { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < binaries.count else { return }
                do {
                    // Nested lines indented for the binary's place in the array (level 2).
                    var writer = AuditJSONWriter(level: 2, objects: table)
                    writer.write(binaries[index])
                    let written = writer.finish()
                    let bytes = writer.failed ? try PrettyJSONEncoder.encode(binaries[index], level: 2, userInfo: userInfo)
                                              : written
                    parts.withLock { $0[index] = bytes }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                    return
                }
            }
        }
        let threads = min(max(workers, 1), binaries.count)
        if threads == 1 { encode(0) } else { DispatchQueue.concurrentPerform(iterations: threads, execute: encode) }
        if let message = failure.withLock({ $0 }) { throw RenderError(message: message) }
        var tail = report
        tail.binaries = []
        let rest = try JSONRenderer.render(Tail(tail, objects: table))
        // rest starts with "{\n  \"errors\"": keep everything after the opening brace line.
        guard rest.hasPrefix("{\n") else { return try JSONRenderer.render(report, userInfo: userInfo) }
        let encoded = parts.withLock { $0 }
        var out = Array("{\n  \"binaries\" : [\n".utf8)
        out.reserveCapacity(encoded.values.reduce(0) { $0 + $1.count + 4 } + rest.utf8.count + 64)
        for index in 0..<binaries.count {
            guard let part = encoded[index] else { return try JSONRenderer.render(report, userInfo: userInfo) }
            out.append(contentsOf: [0x20, 0x20, 0x20, 0x20])
            out.append(contentsOf: part)
            out.append(contentsOf: index == binaries.count - 1 ? [0x0a] : [UInt8(ascii: ","), 0x0a])
        }
        out.append(contentsOf: "  ],\n".utf8)
        out.append(contentsOf: rest.utf8.dropFirst(2))
        return String(decoding: out, as: UTF8.self)
    }

    struct RenderError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Every field of the report but `binaries`, encoded under the same keys.
    struct Tail: Encodable {
        let report: AuditReport
        let objects: ClosureObjectTable?
        init(_ report: AuditReport, objects: ClosureObjectTable?) {
            self.report = report
            self.objects = objects
        }

        enum Keys: String, CodingKey { case errors, objects, schemaVersion, skipped, summary, tool }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(report.errors, forKey: .errors)
            if let objects { try container.encode(objects.records, forKey: .objects) }
            try container.encode(objects == nil ? 1 : 2, forKey: .schemaVersion)
            try container.encodeIfPresent(report.skipped, forKey: .skipped)
            try container.encodeIfPresent(report.summary, forKey: .summary)
            try container.encode(report.tool, forKey: .tool)
        }
    }
}
