import LosslessText
import PremainModel

/// The glibc debug channels premain turns on in an instrumented run, read by `LdDebugParser`:
/// `files` (each object's search and mapping, its initializers, main), `reloc` (each object's
/// relocation pass) and `statistics` (the loader's counts).
public enum LoaderDebugChannels {
    public static let value = "files,reloc,statistics"
    /// The environment entry that asks for them.
    public static let environmentEntry = "LD_DEBUG=" + value
}

/// Reads glibc `LD_DEBUG=files,reloc,statistics` output line by line, each line with the time it
/// arrived, and builds one `LoaderTimeline` per program image. Lines look like
/// `"  4242:\tcalling init: /lib/x.so"`; the pid prefix is optional. Lines it does not know are
/// ignored.
///
/// - Before main, nested loads (an initializer that calls `dlopen`) are attributed to the
///   inner object: an initializer's duration ends at the next initializer line.
/// - After main, a load begins at `file=NAME;  dynamically loaded by WHO` and ends at
///   `opening file=NAME; direct_opencount=N`, which glibc prints once the load's initializers
///   have returned; it goes to `loadedAfterMain`, never to the time before main.
/// - An `execve` keeps the pid, so the new image's loader appends to the same output. Outside
///   a load, after main, `file=…;  needed by …`, a start-up statistics block or the loader's
///   own `calling init` can only come from a new image: a new timeline starts there.
public struct LdDebugParser: Sendable {
    private var images: [LoaderTimeline] = []
    /// The target's pid: glibc prefixes every line with it ("  4242:\t"); a line without it
    /// is the rest of a path that holds a newline, never a loader line of its own.
    private let pid: Int32?
    /// The last line was an initializer line of the current image (a continuation extends it).
    private var lastWasInitializer = false
    private var pendingMap: PendingMap?
    private var inFinalBlock = false
    /// Indices into the current image's `loadedAfterMain` of loads not yet ended, innermost last.
    private var openLoads: [Int] = []
    /// The stamp of the line before, to count lines that arrived in one read.
    private var lastStampMs: Double?
    /// Paths the loader printed whole (`trying file=PATH`, the program as started): what a
    /// requester named in `needed by WHO` must be, so a name holding `];  needed by ` is not cut.
    private var knownPaths: Set<String> = []
    /// Why the loader's channel cannot be trusted: a line only the program can have written
    /// arrived (issue 34, defect 5). `nil` while every line fits where glibc prints it.
    public private(set) var forgery: String?
    /// True once a `calling fini:` line arrived: the loader's `_dl_fini` ran (an `exit`).
    public private(set) var sawFini = false

    private enum PendingMap {
        case image(Int)
        case load(Int, Int)
    }

    /// `pid`: the launched process's, when known (then lines without its prefix continue the
    /// line before: a library path with a newline cannot forge loader lines).
    /// `program`: the path the program was started as (a requester the loader will name).
    public init(pid: Int32? = nil, program: String? = nil) {
        self.pid = pid
        if let program { knownPaths.insert(program) }
    }

    /// Feeds the complete lines of one read of the channel, as bytes, arrived `atMs` after
    /// process birth. glibc writes each message with one `writev` (atomic on a FIFO), so a line
    /// of this read without the pid prefix is the rest of the line before, whose path held a
    /// newline: it is joined to it (with the newline) and the whole is parsed as one line. Bytes
    /// that are not UTF-8 are kept (`LosslessUTF8`), so a path reads as the audit's name for it.
    public mutating func consume(lines: [ArraySlice<UInt8>], atMs: Double) {
        var pending: [UInt8]?
        var joined = 0
        for line in lines {
            if let pid, pending != nil, !Self.hasPrefix(pid: pid, bytes: line), !Self.hasSomePidPrefix(line) {
                pending?.append(UInt8(ascii: "\n"))
                pending?.append(contentsOf: line)
                joined += 1
                continue
            }
            if let previous = pending { consume(joinedLine: previous, joined: joined, atMs: atMs) }
            pending = Array(line)
            joined = 0
        }
        if let previous = pending { consume(joinedLine: previous, joined: joined, atMs: atMs) }
    }

    /// One line made of `joined` + 1 lines of the channel; the joins are counted as continued
    /// lines (the measurement warns that a path held a newline).
    private mutating func consume(joinedLine: [UInt8], joined: Int, atMs: Double) {
        consume(line: LosslessUTF8.string(joinedLine), atMs: atMs)
        guard joined > 0, let last = images.indices.last else { return }
        images[last].continuedLines = (images[last].continuedLines ?? 0) + joined
    }

    /// `"  PID:"` at the start of `line`, as bytes.
    static func hasPrefix(pid: Int32, bytes line: ArraySlice<UInt8>) -> Bool {
        let digits = Array("\(pid):".utf8)
        let rest = line.drop { $0 == UInt8(ascii: " ") }
        return rest.starts(with: digits)
    }

    /// `"  DIGITS:\t"` at the start of `line`: a loader line of some process (a child forked
    /// without exec writes its own, `calling fini` at its exit, to the inherited channel).
    static func hasSomePidPrefix(_ line: ArraySlice<UInt8>) -> Bool {
        let rest = line.drop { $0 == UInt8(ascii: " ") }
        let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty else { return false }
        return rest.dropFirst(digits.count).starts(with: [UInt8(ascii: ":"), UInt8(ascii: "\t")])
    }

    /// Marks the channel untrustworthy (the first reason wins).
    private mutating func forged(_ why: String) {
        if forgery == nil { forgery = why }
    }

    /// The first image's timeline; `nil` when no line arrived.
    public var result: LoaderTimeline? { images.first }

    /// The images exec'd after the first, in order; `nil` when there were none.
    public var laterImages: [LoaderTimeline]? { images.count > 1 ? Array(images.dropFirst()) : nil }

    /// Feeds one line (without its newline) that arrived `atMs` after process birth.
    public mutating func consume(line rawLine: String, atMs: Double) {
        if let pid, !images.isEmpty, !Self.hasPrefix(pid: pid, rawLine) {
            continueLine(rawLine)
            return
        }
        let line = Self.stripPid(rawLine)
        if line.hasPrefix("calling fini: ") { sawFini = true }
        lastWasInitializer = line.hasPrefix("calling init: ") || line.hasPrefix("initialize program: ")
        if images.isEmpty {
            images.append(LoaderTimeline(loaderStartMs: atMs))
        }
        if startsNewImage(line) {
            images.append(LoaderTimeline(loaderStartMs: atMs))
            openLoads = []
            pendingMap = nil
            inFinalBlock = false
        }
        var current = images[images.count - 1]
        defer { images[images.count - 1] = current }
        current.lines = (current.lines ?? 0) + 1
        if atMs == lastStampMs { current.sameStampLines = (current.sameStampLines ?? 0) + 1 }
        lastStampMs = atMs
        if current.mainMs != nil,
            !openLoads.isEmpty || line.hasPrefix("opening file=")
                || line.contains("dynamically loaded by") || line.hasPrefix("calling init: ")
        {
            if consumeLate(line, atMs: atMs, timeline: &current) { return }
        }

        if let path = Self.value(after: "trying file=", in: line) {
            knownPaths.insert(path)
        } else if line.hasPrefix("file=") {
            handleFile(line, atMs: atMs, timeline: &current)
        } else if line.hasPrefix("dynamic:") {
            markMapped(atMs: atMs, timeline: &current)
        } else if let rest = Self.value(after: "relocation processing: ", in: line) {
            guard current.mainMs == nil else { return }
            endRelocation(atMs: atMs, timeline: &current)
            let lazy = rest.hasSuffix(" (lazy)")
            let path = lazy ? String(rest.dropLast(" (lazy)".count)) : rest
            current.relocations =
                (current.relocations ?? []) + [.init(path: path, startMs: atMs, durationMs: nil, lazy: lazy)]
        } else if let path = Self.value(after: "calling init: ", in: line) {
            endRelocation(atMs: atMs, timeline: &current)
            close(&current.initializers, atMs: atMs)
            if current.loaderDoneMs == nil { current.loaderDoneMs = atMs }
            current.initializers.append(.init(path: path, startMs: atMs, durationMs: nil, isProgram: false))
        } else if let path = Self.value(after: "initialize program: ", in: line) {
            // glibc's libc prints it before the program's constructors and "transferring
            // control" after them: after main it can only be the program's own write.
            if current.mainMs != nil { forged("'initialize program' arrived after 'transferring control'") }
            endRelocation(atMs: atMs, timeline: &current)
            close(&current.initializers, atMs: atMs)
            if current.loaderDoneMs == nil { current.loaderDoneMs = atMs }
            if current.program == nil { current.program = path }
            current.initializers.append(.init(path: path, startMs: atMs, durationMs: nil, isProgram: true))
        } else if let path = Self.value(after: "transferring control: ", in: line) {
            // Printed once per image, just before main: a second one is the program's write.
            if current.mainMs != nil { forged("a second 'transferring control' line arrived") }
            // libc prints "initialize program" before the program's constructors, so a main
            // without it came from a library's constructor (or the loader's own lines are gone).
            if !current.initializers.contains(where: \.isProgram) {
                forged("'transferring control' arrived before 'initialize program'")
            }
            endRelocation(atMs: atMs, timeline: &current)
            close(&current.initializers, atMs: atMs)
            if current.mainMs == nil { current.mainMs = atMs }
            if current.program == nil { current.program = path }
        } else if line.hasPrefix("runtime linker statistics:") {
            endRelocation(atMs: atMs, timeline: &current)
            inFinalBlock = current.startupCounts != nil
        } else if line.contains("number of") {
            handleCount(line, timeline: &current)
        }
    }

    /// `"  PID:"` at the start of `line` (glibc pads the pid to five columns).
    static func hasPrefix(pid: Int32, _ line: String) -> Bool {
        let trimmed = line.drop { $0 == " " }
        return trimmed.hasPrefix("\(pid):")
    }

    /// A line without the pid prefix: the rest of the previous line's path, which held a
    /// newline. It extends that initializer's path and is counted; it is never parsed.
    private mutating func continueLine(_ rawLine: String) {
        var current = images[images.count - 1]
        current.continuedLines = (current.continuedLines ?? 0) + 1
        if lastWasInitializer, !Self.hasSomePidPrefix(Array(rawLine.utf8)[...]),
            let last = current.initializers.indices.last
        {
            current.initializers[last].path += "\n" + rawLine
        }
        images[images.count - 1] = current
    }

    /// True when `line`, arriving after the current image's main and outside any load, can only
    /// come from a new image's loader.
    private func startsNewImage(_ line: String) -> Bool {
        guard let current = images.last, current.mainMs != nil, openLoads.isEmpty else { return false }
        if line.hasPrefix("file="), line.contains("needed by ") { return true }
        if line.hasPrefix("total startup time in dynamic loader") { return true }
        if let path = Self.value(after: "calling init: ", in: line), ObjectName.isDynamicLoader(path) { return true }
        return false
    }

    /// A line of a load after main; false when it is not one (the caller handles it).
    private mutating func consumeLate(_ line: String, atMs: Double, timeline: inout LoaderTimeline) -> Bool {
        var loads = timeline.loadedAfterMain ?? []
        defer { timeline.loadedAfterMain = loads.isEmpty ? nil : loads }
        if line.hasPrefix("file="), let (name, requester) = fileLine(line, marker: "dynamically loaded by ") {
            loads.append(.init(name: name, requester: requester, startMs: atMs))
            openLoads.append(loads.count - 1)
            return true
        }
        if line.hasPrefix("opening file=") {
            // Ends the innermost open load (a load already present prints only this line).
            guard let index = openLoads.popLast() else { return true }
            close(&loads[index].initializers, atMs: atMs)
            loads[index].endMs = atMs
            return true
        }
        guard let index = openLoads.last else {
            // An initializer after main with no load announced: a load of its own.
            guard let path = Self.value(after: "calling init: ", in: line) else { return false }
            var load = LoaderTimeline.LateLoad(name: path, requester: nil, startMs: atMs)
            load.initializers.append(.init(path: path, startMs: atMs, durationMs: nil, isProgram: false))
            loads.append(load)
            return true
        }
        if line.hasPrefix("file=") {
            if let (name, _) = fileLine(line, marker: "needed by ") {
                loads[index].objects.append(.init(name: name, neededBy: nil, mappedMs: nil))
            } else if line.hasSuffix("generating link map"), let name = fileName(line) {
                if let object = loads[index].objects.lastIndex(where: { $0.name == name && $0.mappedMs == nil }) {
                    pendingMap = .load(index, object)
                } else {
                    loads[index].objects.append(.init(name: name, neededBy: nil, mappedMs: nil))
                    pendingMap = .load(index, loads[index].objects.count - 1)
                }
            }
            return true
        }
        if line.hasPrefix("dynamic:") {
            if case .load(let load, let object)? = pendingMap, load < loads.count, object < loads[load].objects.count {
                loads[load].objects[object].mappedMs = atMs
            }
            pendingMap = nil
            return true
        }
        if let path = Self.value(after: "calling init: ", in: line) {
            close(&loads[index].initializers, atMs: atMs)
            loads[index].initializers.append(.init(path: path, startMs: atMs, durationMs: nil, isProgram: false))
            return true
        }
        return false
    }

    /// Ends the open relocation pass of `timeline`, if any, at `atMs`.
    private func endRelocation(atMs: Double, timeline: inout LoaderTimeline) {
        guard var passes = timeline.relocations, let last = passes.indices.last, passes[last].durationMs == nil else {
            return
        }
        passes[last].durationMs = max(0, atMs - passes[last].startMs)
        timeline.relocations = passes
    }

    private mutating func markMapped(atMs: Double, timeline: inout LoaderTimeline) {
        if case .image(let index)? = pendingMap, index < timeline.objects.count {
            timeline.objects[index].mappedMs = atMs
        }
        pendingMap = nil
    }

    private mutating func handleFile(_ line: String, atMs: Double, timeline: inout LoaderTimeline) {
        // "file=NAME [NS];  needed by WHO [NS]" or "file=NAME [NS];  generating link map"
        guard let name = fileName(line) else { return }
        if line.hasSuffix("generating link map") {
            if let index = timeline.objects.lastIndex(where: { $0.name == name && $0.mappedMs == nil }) {
                pendingMap = .image(index)
            } else {
                timeline.objects.append(.init(name: name, neededBy: nil, mappedMs: nil, startMs: atMs))
                pendingMap = .image(timeline.objects.count - 1)
            }
        } else if let (_, requester) = fileLine(line, marker: "needed by ")
            ?? fileLine(line, marker: "dynamically loaded by ")
        {
            timeline.objects.append(.init(name: name, neededBy: requester, mappedMs: nil, startMs: atMs))
        }
    }

    /// NAME of `file=NAME [NS];  generating link map` or `file=NAME [NS];  needed by WHO [NS]`.
    /// The name ends at the namespace bracket that precedes the line's fixed tail, found from the
    /// end, never at the first ` [` (a path may hold one).
    func fileName(_ line: String) -> String? {
        guard line.hasPrefix("file=") else { return nil }
        if let name = Self.beforeNamespace(line, tail: ";  generating link map") { return name }
        for marker in ["needed by ", "dynamically loaded by "] {
            if let (name, _) = fileLine(line, marker: marker) { return name }
        }
        return nil
    }

    /// NAME and WHO of `file=NAME [NS];  MARKER WHO [NS]`. Where MARKER occurs more than once
    /// (a path holds it), the split whose WHO is a path the loader printed whole wins, else the
    /// last one.
    func fileLine(_ line: String, marker: String) -> (String, String)? {
        guard line.hasPrefix("file=") else { return nil }
        let separator = ";  " + marker
        var candidates: [(String, String)] = []
        var searchStart = line.startIndex
        while let found = line[searchStart...].firstRange(of: separator) {
            searchStart = found.upperBound
            guard let name = Self.beforeNamespace(String(line[..<found.upperBound]), tail: separator) else {
                continue
            }
            let rest = String(line[found.upperBound...])
            let who = Self.beforeNamespace(rest + ";", tail: ";", requirePrefix: false) ?? rest
            candidates.append((name, who))
        }
        return candidates.last { knownPaths.contains($0.1) } ?? candidates.last
    }

    /// The text between `file=` (when `requirePrefix`) and ` [DIGITS]` + `tail` at the end of
    /// `line`; `nil` when `line` does not end that way.
    static func beforeNamespace(_ line: String, tail: String, requirePrefix: Bool = true) -> String? {
        guard line.hasSuffix("]" + tail) else { return nil }
        let body = line.dropLast(tail.count + 1)
        guard let open = body.lastIndex(of: "["), open > body.startIndex,
            body[body.index(after: open)...].allSatisfy(\.isASCIIDigit),
            body[body.index(before: open)] == " "
        else { return nil }
        let name = body[..<body.index(before: open)]
        if requirePrefix {
            guard name.hasPrefix("file=") else { return nil }
            return String(name.dropFirst(5))
        }
        return String(name)
    }

    private mutating func handleCount(_ line: String, timeline: inout LoaderTimeline) {
        guard let colon = line.lastIndex(of: ":"),
            let value = Int(line[line.index(after: colon)...].trimmingBlanks())
        else { return }
        let label = String(line[..<colon])
        let final = inFinalBlock || label.hasPrefix("final")
        var counts = (final ? timeline.finalCounts : timeline.startupCounts) ?? LoaderCounts()
        if label.hasSuffix("number of relocations") {
            counts.symbolLookups = value
        } else if label.hasSuffix("number of relocations from cache") {
            counts.relocationsFromCache = value
        } else if label.hasSuffix("number of relative relocations") {
            counts.relativeRelocations = value
        } else {
            return
        }
        if final {
            timeline.finalCounts = counts
        } else {
            timeline.startupCounts = counts
        }
    }

    /// Ends the last initializer of `calls` at `atMs` when it is still open.
    private func close(_ calls: inout [LoaderTimeline.InitializerCall], atMs: Double) {
        guard let last = calls.indices.last, calls[last].durationMs == nil else { return }
        calls[last].durationMs = atMs - calls[last].startMs
    }

    /// The line without the `"  PID:\t"` prefix and surrounding blanks.
    static func stripPid(_ line: String) -> String {
        var rest = Substring(line)
        if let colon = rest.firstIndex(of: ":"),
            rest[..<colon].allSatisfy({ $0 == " " || $0.isNumber }),
            rest[..<colon].contains(where: \.isNumber)
        {
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

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    func trimmingBlanks() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !blank($0) }),
            let last = lastIndex(where: { !blank($0) })
        else { return "" }
        return self[first...last]
    }
}
