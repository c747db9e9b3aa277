// Fuzz target: an SQLite file through the history database's reader, as `premain history show`
// and `pr --history-db` read it: written to a temporary file, opened read-only
// (HistoryStore.reading: the file-system checks, identification, every metric's series and
// steps), and rendered as text, Markdown, JSON and HTML. The first byte says what the file is,
// so that damaged premain databases are tried although SQLite (a system library) is not
// instrumented and libFuzzer cannot see its coverage:
//   0  the rest as it is (random bytes, the corpus's SQLite files and their truncations)
//   1  a valid premain database (24 reports, a step, made once per run) cut at the offset the
//      next 4 bytes give (little-endian, modulo its size)
//   2  that database with bytes replaced: the rest read as (offset: 2 bytes, byte: 1 byte)
// Each input's file is written to one path in a temporary folder.
// Tests/PremainCoreTests/FuzzRegressionTests.swift replays kept inputs the same way.
import PremainHistory
import PremainModel
import PremainRender

#if canImport(Glibc)
    import Glibc
#endif

/// The folder of this run's database file, in $TMPDIR (scripts/fuzz gives one it removes after
/// the run, also when the fuzzer dies); removed at exit.
private let folder = makeFolder()
private let databasePath = folder + "/history.sqlite"

private func makeFolder() -> String {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/premain-fuzz-history-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("fuzz-history: cannot make a temporary folder") }
    atexit(removeFolder)
    return String(cString: made)
}

private func removeFolder() {
    unlink(databasePath)
    rmdir(folder)
}

/// A premain database made with the store's own writes: 24 reports, `main` stepping up 2 ms at
/// the 13th commit, a count, a trace function name with odd characters.
private let validDatabase: [UInt8] = {
    let path = folder + "/valid.sqlite"
    do {
        let store = try HistoryStore(path: path)
        for index in 0..<24 {
            let main = 40 + (index >= 12 ? 2 : 0) + Double(index % 3) * 0.1
            try store.add(
                json: "{\"schemaVersion\":1,\"index\":\(index)}", kind: index % 2 == 0 ? "measure" : "trace",
                metrics: [
                    HistoryMetric(name: "main", unit: "ms", value: main),
                    HistoryMetric(name: "loader.symbolLookups", unit: "count", value: Double(100 + index / 8)),
                    HistoryMetric(name: "trace.function.é|<x>", unit: "ms", value: Double(index)),
                ],
                commit: index % 5 == 4 ? nil : "c\(index)", recordedAt: "2026-12-01T00:00:00Z")
        }
    } catch {
        fatalError("fuzz-history: cannot make the valid database: \(error)")
    }
    let bytes = read(path)
    unlink(path)
    return bytes
}()

private func read(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { return bytes }
        bytes += chunk[0..<count]
    }
}

private func write(_ bytes: [UInt8], to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { fatalError("fuzz-history: cannot write \(path)") }
    defer { close(fd) }
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { fatalError("fuzz-history: cannot write \(path)") }
        offset += count
    }
}

/// The file an input stands for (see the top of this file).
private func file(for input: UnsafeRawBufferPointer) -> [UInt8] {
    guard let mode = input.first else { return [] }
    let rest = Array(input.dropFirst())
    switch mode % 3 {
    case 0:
        return rest
    case 1:
        let offset = rest.prefix(4).enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        return Array(validDatabase.prefix(offset % (validDatabase.count + 1)))
    default:
        var bytes = validDatabase
        var index = 0
        while index + 3 <= rest.count {
            let offset = (Int(rest[index]) | Int(rest[index + 1]) << 8) % max(1, bytes.count)
            if offset < bytes.count { bytes[offset] = rest[index + 2] }
            index += 3
        }
        return bytes
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHistory(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    write(file(for: UnsafeRawBufferPointer(start: data, count: size)), to: databasePath)
    let report = try? HistoryStore.reading(databasePath) { store throws(HistoryError) -> HistoryReport in
        _ = try store.reportJSON(id: 1)
        _ = try store.schemaVersion()
        let report = try store.report(metrics: [], last: nil, database: databasePath)
        if let first = report.series.first { _ = try store.series(first.metric, last: 10) }
        return report
    }
    if let report {
        _ = HistoryTextRenderer.render(report)
        _ = HistoryMarkdownRenderer.render(report)
        _ = HTMLReportRenderer.render(report)
        _ = try? JSONRenderer.render(report)
    }
    return 0
}
