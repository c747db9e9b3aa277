import PremainModel

/// Reads glibc `LD_DEBUG=files,statistics` output line by line, each line with the time it
/// arrived, and builds a `LoaderTimeline`. Lines look like `"  4242:\tcalling init: /lib/x.so"`;
/// the pid prefix is optional. Lines it does not know are ignored.
///
/// Nested loads (an initializer that calls `dlopen`) are attributed to the inner object: an
/// initializer's duration always ends at the next initializer line.
public struct LdDebugParser: Sendable {
    private var timeline: LoaderTimeline?
    private var pendingMap: Int?
    private var inFinalBlock = false

    public init() {}

    /// Feeds one line (without its newline) that arrived `atMs` after process birth.
    public mutating func consume(line rawLine: String, atMs: Double) {
        if timeline == nil { timeline = LoaderTimeline(loaderStartMs: atMs) }
        guard var current = timeline else { return }
        let line = Self.stripPid(rawLine)
        defer { timeline = current }

        if line.hasPrefix("file=") {
            handleFile(line, atMs: atMs, timeline: &current)
        } else if line.hasPrefix("dynamic:") {
            if let index = pendingMap {
                current.objects[index].mappedMs = atMs
                pendingMap = nil
            }
        } else if let path = Self.value(after: "calling init: ", in: line) {
            close(&current, atMs: atMs)
            if current.loaderDoneMs == nil { current.loaderDoneMs = atMs }
            current.initializers.append(.init(path: path, startMs: atMs, durationMs: nil, isProgram: false))
        } else if let path = Self.value(after: "initialize program: ", in: line) {
            close(&current, atMs: atMs)
            if current.loaderDoneMs == nil { current.loaderDoneMs = atMs }
            current.initializers.append(.init(path: path, startMs: atMs, durationMs: nil, isProgram: true))
        } else if Self.value(after: "transferring control: ", in: line) != nil {
            close(&current, atMs: atMs)
            if current.mainMs == nil { current.mainMs = atMs }
        } else if line.hasPrefix("runtime linker statistics:") {
            inFinalBlock = current.startupCounts != nil
        } else if line.contains("number of") {
            handleCount(line, timeline: &current)
        }
    }

    /// The timeline so far; `nil` when no line arrived.
    public var result: LoaderTimeline? { timeline }

    private mutating func handleFile(_ line: String, atMs: Double, timeline: inout LoaderTimeline) {
        // "file=NAME [NS];  needed by WHO [NS]" or "file=NAME [NS];  generating link map"
        guard let nameEnd = line.firstRange(of: " [") else { return }
        let name = String(line[line.index(line.startIndex, offsetBy: 5)..<nameEnd.lowerBound])
        if line.hasSuffix("generating link map") {
            if let index = timeline.objects.lastIndex(where: { $0.name == name && $0.mappedMs == nil }) {
                pendingMap = index
            } else {
                timeline.objects.append(.init(name: name, neededBy: nil, mappedMs: nil))
                pendingMap = timeline.objects.count - 1
            }
        } else if let marker = line.firstRange(of: "needed by ") ?? line.firstRange(of: "dynamically loaded by ") {
            let who = line[marker.upperBound...]
            let requester = String(who.firstRange(of: " [").map { who[..<$0.lowerBound] } ?? who)
            timeline.objects.append(.init(name: name, neededBy: requester, mappedMs: nil))
        }
    }

    private mutating func handleCount(_ line: String, timeline: inout LoaderTimeline) {
        guard let colon = line.lastIndex(of: ":"),
              let value = Int(line[line.index(after: colon)...].trimmingBlanks()) else { return }
        let label = String(line[..<colon])
        var counts = (inFinalBlock ? timeline.finalCounts : timeline.startupCounts) ?? LoaderCounts()
        if label.hasSuffix("number of relocations") {
            counts.symbolLookups = value
        } else if label.hasSuffix("number of relocations from cache") {
            counts.relocationsFromCache = value
        } else if label.hasSuffix("number of relative relocations") {
            counts.relativeRelocations = value
        } else {
            return
        }
        if inFinalBlock || label.hasPrefix("final") {
            timeline.finalCounts = counts
        } else {
            timeline.startupCounts = counts
        }
    }

    private func close(_ timeline: inout LoaderTimeline, atMs: Double) {
        guard let last = timeline.initializers.indices.last,
              timeline.initializers[last].durationMs == nil else { return }
        timeline.initializers[last].durationMs = atMs - timeline.initializers[last].startMs
    }

    /// The line without the `"  PID:\t"` prefix and surrounding blanks.
    static func stripPid(_ line: String) -> String {
        var rest = Substring(line)
        if let colon = rest.firstIndex(of: ":"),
           rest[..<colon].allSatisfy({ $0 == " " || $0.isNumber }),
           rest[..<colon].contains(where: \.isNumber) {
            rest = rest[rest.index(after: colon)...]
        }
        return String(rest).trimmedBlanks()
    }

    static func value(after prefix: String, in line: String) -> String? {
        guard line.hasPrefix(prefix) else { return nil }
        var value = String(line.dropFirst(prefix.count))
        // "calling fini: X [0]" style suffixes never follow init lines, but be tolerant.
        if value.hasSuffix(" [0]") { value.removeLast(4) }
        return value
    }
}

// Blank trimming without Foundation, for loader lines and /proc text.
extension String {
    /// Without leading and trailing spaces, tabs and newlines.
    func trimmedBlanks() -> String {
        String(Substring(self).trimmingBlanks())
    }
}

extension Substring {
    func trimmingBlanks() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }),
              let last = lastIndex(where: { !blank($0) }) else { return "" }
        return self[first...last]
    }
}
