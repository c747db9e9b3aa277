import PremainModel

/// Writes a `BinaryInventory` as the JSON `PrettyJSONEncoder` writes for it, byte for byte,
/// without `Codable`: keys are written in their sorted order straight into the buffer, with no
/// tree of nodes, no boxed containers and no sorting. A folder audit's report runs to megabytes,
/// and `Codable` took most of the instructions of writing it.
///
/// Every field of the audit model is listed here: a field added to the model must be added
/// here too. `AuditJSONWriterTests` compares the two writers on the samples, on system folders
/// and on a value with every optional field set, so a field written by one and not the other
/// fails the tests.
struct AuditJSONWriter {
    /// The bytes written so far: a buffer of its own, because `Array.append` costs about a
    /// hundred instructions per call and a report makes millions of small appends.
    private var out = ByteBuffer(capacity: 16384)
    /// The `objects` table closures refer to (JSON schema 2), or `nil` for full records.
    let objects: ClosureObjectTable?
    /// Set when a value cannot be written as JSON (a non-finite number): the caller then
    /// encodes with `Codable`, which throws the encoding error.
    private(set) var failed = false
    private var level: Int

    init(level: Int, objects: ClosureObjectTable?) {
        self.level = level
        self.objects = objects
    }

    /// The bytes written, and the buffer freed: call once, when done.
    mutating func finish() -> [UInt8] {
        out.take()
    }

    // MARK: The model

    mutating func write(_ binary: BinaryInventory) {
        beginObject()
        if let closure = binary.closure {
            key("closure")
            write(closure)
        }
        if let skipped = binary.closureSkipped { key("closureSkipped"); string(skipped) }
        key("diagnostics"); strings(binary.diagnostics)
        key("dynamic"); write(binary.dynamic)
        key("header"); write(binary.header)
        key("initializers"); write(binary.initializers)
        key("needed"); strings(binary.needed)
        key("path"); string(binary.path)
        key("relocations"); write(binary.relocations)
        key("sizes"); write(binary.sizes)
        if let swift = binary.swift { key("swift"); write(swift) }
        key("symbols"); write(binary.symbols)
        if let toolchain = binary.toolchain { key("toolchain"); write(toolchain) }
        if let unused = binary.unusedNeeded { key("unusedNeeded"); strings(unused) }
        endObject()
    }

    private mutating func write(_ header: BinaryInventory.Header) {
        beginObject()
        if let id = header.buildID { key("buildID"); string(id) }
        if let link = header.debugLink { key("debugLink"); string(link) }
        key("elfClass"); string(header.elfClass.rawValue)
        key("endianness"); string(header.endianness.rawValue)
        key("fileSize"); number(header.fileSize)
        if let interpreter = header.interpreter { key("interpreter"); string(interpreter) }
        key("kind"); string(header.kind.rawValue)
        key("machine"); string(header.machine)
        key("machineName"); string(header.machineName)
        if let soname = header.soname { key("soname"); string(soname) }
        key("stripped"); bool(header.stripped)
        endObject()
    }

    private mutating func write(_ dynamic: BinaryInventory.DynamicInfo) {
        beginObject()
        key("bindNow"); bool(dynamic.bindNow)
        key("gnuHash"); bool(dynamic.gnuHash)
        key("noDefaultLib"); bool(dynamic.noDefaultLib)
        key("rpath"); strings(dynamic.rpath)
        key("runpath"); strings(dynamic.runpath)
        key("symbolVersioning"); bool(dynamic.symbolVersioning)
        key("sysvHash"); bool(dynamic.sysvHash)
        key("textRel"); bool(dynamic.textRel)
        endObject()
    }

    private mutating func write(_ census: RelocationCensus) {
        beginObject()
        key("copy"); number(census.copy)
        key("irelative"); number(census.irelative)
        key("none"); number(census.none)
        key("plt"); number(census.plt)
        key("relative"); number(census.relative)
        key("relrAddresses"); number(census.relrAddresses)
        key("symbolic"); number(census.symbolic)
        key("tables")
        beginArray()
        for table in census.tables {
            element()
            beginObject()
            key("entries"); number(table.entries)
            key("format"); string(table.format.rawValue)
            key("name"); string(table.name)
            endObject()
        }
        endArray()
        key("tls"); number(census.tls)
        key("total"); number(census.total)
        endObject()
    }

    private mutating func write(_ symbols: SymbolCensus) {
        beginObject()
        key("exported"); number(symbols.exported)
        key("exportedByType"); write(symbols.exportedByType)
        if let names = symbols.exportedNames { key("exportedNames"); strings(names) }
        key("imported"); number(symbols.imported)
        key("importedByType"); write(symbols.importedByType)
        if let names = symbols.importedNames { key("importedNames"); strings(names) }
        endObject()
    }

    private mutating func write(_ byType: SymbolCensus.ByType) {
        beginObject()
        key("function"); number(byType.function)
        key("ifunc"); number(byType.ifunc)
        key("object"); number(byType.object)
        key("other"); number(byType.other)
        key("tls"); number(byType.tls)
        endObject()
    }

    private mutating func write(_ census: InitializerCensus) {
        beginObject()
        key("ctors"); number(census.ctors)
        key("dtInit"); bool(census.dtInit)
        key("entries")
        beginArray()
        for entry in census.entries {
            element()
            write(entry)
        }
        endArray()
        key("initArray"); number(census.initArray)
        key("preinitArray"); number(census.preinitArray)
        key("toolchain"); number(census.toolchain)
        key("total"); number(census.total)
        endObject()
    }

    private mutating func write(_ entry: InitializerInfo) {
        beginObject()
        if let address = entry.address { key("address"); string(address) }
        if let demangled = entry.demangled { key("demangled"); string(demangled) }
        key("index"); number(entry.index)
        key("kind"); string(entry.kind.rawValue)
        if let location = entry.location { key("location"); write(location) }
        key("resolution"); string(entry.resolution.rawValue)
        key("source"); string(entry.source.rawValue)
        if let symbol = entry.symbol { key("symbol"); string(symbol) }
        key("toolchain"); bool(entry.toolchain)
        if let unit = entry.translationUnit { key("translationUnit"); string(unit) }
        endObject()
    }

    private mutating func write(_ location: SourceLocation) {
        beginObject()
        key("file"); string(location.file)
        key("line"); number(location.line)
        endObject()
    }

    private mutating func write(_ swift: SwiftCensus) {
        beginObject()
        key("defaultArguments"); write(swift.defaultArguments)
        key("lazyGlobals"); write(swift.lazyGlobals)
        key("metadataSections")
        beginObject()
        for name in swift.metadataSections.keys.sorted(by: { PrettyJSONEncoder.compare($0, $1) < 0 }) {
            element()
            string(name)
            out.append(Self.colon)
            number(swift.metadataSections[name] ?? 0)
        }
        endObject()
        endObject()
    }

    private mutating func write(_ suspects: [SwiftSuspect]) {
        beginArray()
        for suspect in suspects {
            element()
            beginObject()
            key("address"); string(suspect.address)
            if let demangled = suspect.demangled { key("demangled"); string(demangled) }
            if let location = suspect.location { key("location"); write(location) }
            key("size"); number(suspect.size)
            key("symbol"); string(suspect.symbol)
            endObject()
        }
        endArray()
    }

    private mutating func write(_ sizes: SizeCensus) {
        beginObject()
        if let basis = sizes.basis { key("basis"); string(basis.rawValue) }
        key("bss"); number(sizes.bss)
        key("data"); number(sizes.data)
        key("file"); number(sizes.file)
        key("relro"); number(sizes.relro)
        key("rodata"); number(sizes.rodata)
        key("text"); number(sizes.text)
        if let writable = sizes.writableRodata { key("writableRodata"); number(writable) }
        endObject()
    }

    private mutating func write(_ toolchain: BuildToolchain) {
        beginObject()
        key("autolinkEntries"); strings(toolchain.autolinkEntries)
        key("comments"); strings(toolchain.comments)
        key("evidence"); string(toolchain.evidence.rawValue)
        key("languages"); strings(toolchain.languages.map(\.rawValue))
        key("linker"); string(toolchain.linker.rawValue)
        if let version = toolchain.linkerVersion { key("linkerVersion"); string(version) }
        endObject()
    }

    private mutating func write(_ closure: DependencyClosure) {
        beginObject()
        key("missing")
        beginArray()
        for missing in closure.missing {
            element()
            beginObject()
            key("name"); string(missing.name)
            key("neededBy"); string(missing.neededBy)
            key("searched"); strings(missing.searched)
            key("wrongClass"); strings(missing.wrongClass)
            endObject()
        }
        endArray()
        key("objects")
        beginArray()
        for object in closure.objects {
            element()
            write(object)
        }
        endArray()
        if let program = closure.program { key("program"); write(program) }
        key("top")
        beginArray()
        for share in closure.top {
            element()
            write(share)
        }
        endArray()
        if let totals = closure.totals {
            key("totals")
            beginObject()
            key("exported"); number(totals.exported)
            key("initializers"); number(totals.initializers)
            key("lookups"); number(totals.lookups)
            key("objects"); number(totals.objects)
            key("relocations"); write(totals.relocations)
            endObject()
        }
        key("unusedNeeded"); strings(closure.unusedNeeded)
        endObject()
    }

    /// As `ClosureObject.encode(to:)` writes it: by id when the table holds it (and its loader,
    /// unless the program loaded it), else in full.
    private mutating func write(_ object: ClosureObject) {
        beginObject()
        key("depth"); number(object.depth)
        key("foundVia"); string(object.foundVia.rawValue)
        if let reference = objects?.reference(for: object) {
            if let loader = reference.loader { key("neededBy"); number(loader) }
            key("object"); number(reference.id)
            key("requestedName"); string(object.requestedName)
            if let directory = object.searchDirectory { key("searchDirectory"); string(directory) }
        } else {
            key("neededBy"); string(object.neededBy)
            key("path"); string(object.path)
            key("realPath"); string(object.realPath)
            key("requestedName"); string(object.requestedName)
            if let directory = object.searchDirectory { key("searchDirectory"); string(directory) }
            if let soname = object.soname { key("soname"); string(soname) }
            key("system"); bool(object.system)
        }
        endObject()
    }

    private mutating func write(_ cost: ObjectCost) {
        beginObject()
        key("bindNow"); bool(cost.bindNow)
        key("exported"); number(cost.exported)
        key("initializers"); number(cost.initializers)
        key("lookups"); number(cost.lookups)
        key("relocations"); write(cost.relocations)
        endObject()
    }

    private mutating func write(_ share: ObjectShare) {
        beginObject()
        key("exported"); number(share.exported)
        key("initializers"); number(share.initializers)
        key("lookups"); number(share.lookups)
        let id = objects?.id(ofPath: share.path)
        if let id { key("object"); number(id) } else { key("path"); string(share.path) }
        key("relocationShare"); number(share.relocationShare)
        key("relocations"); number(share.relocations)
        if id == nil, let soname = share.soname { key("soname"); string(soname) }
        endObject()
    }

    // MARK: Bytes, as PrettyJSONEncoder.write lays them out

    private static let colon = StaticString(" : ")

    /// ",\n" and 64 spaces: a separator and the indentation of up to 32 levels are a slice of
    /// it (deeper levels are indented in pieces).
    private static let separator = StaticString(",\n                                                                ")

    private mutating func beginObject() {
        out.append(UInt8(ascii: "{"), 0x0a)
        level += 1
    }

    private mutating func endObject() {
        level -= 1
        close(UInt8(ascii: "}"))
    }

    private mutating func beginArray() {
        out.append(UInt8(ascii: "["), 0x0a)
        level += 1
    }

    private mutating func endArray() {
        level -= 1
        close(UInt8(ascii: "]"))
    }

    /// A newline, the indentation of `level` and `bracket`.
    private mutating func close(_ bracket: UInt8) {
        out.append(0x0a)
        indent()
        out.append(bracket)
    }

    private mutating func indent() {
        var remaining = level * 2
        while remaining > 0 {
            let count = min(remaining, 64)
            Self.separator.withUTF8Buffer { out.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[2..<(2 + count)])) }
            remaining -= count
        }
    }

    /// Before each member or element: the separator (unless it is the first: the container
    /// was just opened, so the last byte is its newline) and the indentation.
    private mutating func element() {
        if out.last != 0x0a { out.append(UInt8(ascii: ","), 0x0a) }
        indent()
    }

    /// A member's key (plain ASCII, no escaping needed) and the colon, after the separator and
    /// the indentation: one reservation and a few copies, as a report writes millions of keys.
    private mutating func key(_ name: StaticString) {
        let first = out.last == 0x0a
        let indentation = level * 2
        guard indentation <= 64 else {
            element()
            out.append(UInt8(ascii: "\""))
            out.append(name)
            out.append(UInt8(ascii: "\""))
            out.append(Self.colon)
            return
        }
        Self.separator.withUTF8Buffer { separator in
            name.withUTF8Buffer { name in
                out.appendKey(separator: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(separator)[(first ? 2 : 0)..<(2 + indentation)]),
                              name: UnsafeRawBufferPointer(name))
            }
        }
    }

    /// As `PrettyJSONEncoder.writeString`: the bytes as they are unless one needs escaping.
    private mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            if bytes.contains(where: PrettyJSONEncoder.needsEscape) {
                var escaped: [UInt8] = []
                PrettyJSONEncoder.writeEscaped(bytes, into: &escaped)
                escaped.withUnsafeBytes { out.append($0) }
            } else {
                out.append(UnsafeRawBufferPointer(bytes))
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    private mutating func strings(_ texts: [String]) {
        beginArray()
        for text in texts {
            element()
            string(text)
        }
        endArray()
    }

    private mutating func bool(_ value: Bool) {
        out.append(value ? StaticString("true") : StaticString("false"))
    }

    private mutating func number(_ value: Int) {
        if value < 0 {
            out.append(UInt8(ascii: "-"))
            number(value.magnitude)
        } else {
            number(UInt64(value))
        }
    }

    private mutating func number(_ value: UInt) {
        number(UInt64(value))
    }

    /// Decimal digits, as `String(value)` writes them.
    private mutating func number(_ value: UInt64) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes: 20 digits at most
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[31 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            out.append(UnsafeRawBufferPointer(rebasing: buffer[(32 - count)...]))
        }
    }

    /// As `PrettyJSONEncoder.number`; a value JSON cannot hold marks the writer failed.
    private mutating func number(_ value: Double) {
        guard var text = PrettyJSONEncoder.numberText(value) else {
            failed = true
            return
        }
        text.withUTF8 { out.append(UnsafeRawBufferPointer($0)) }
    }
}

/// A growable byte buffer with appends of a few instructions: no copy-on-write check, no
/// generic path. Owned by one writer, which must not be copied; `take` hands the bytes over and
/// frees the storage (a writer dropped without `take` leaks it).
struct ByteBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    var last: UInt8? { count > 0 ? base[count - 1] : nil }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        var grown = max(capacity * 2, 64)
        while grown < count + extra { grown *= 2 }
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.update(from: base, count: count)
        if capacity > 0 { base.deallocate() }
        base = moved
        capacity = grown
    }

    /// What `take` leaves: no storage (a capacity of 0 makes the next append allocate).
    private nonisolated(unsafe) static let none = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    /// `separator` (the comma, newline and indentation), then `"name" : `.
    @inline(__always)
    mutating func appendKey(separator: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer) {
        reserve(separator.count + name.count + 5)
        let start = UnsafeMutableRawPointer(base + count)
        if let from = separator.baseAddress { start.copyMemory(from: from, byteCount: separator.count) }
        var at = start + separator.count
        at.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        if let from = name.baseAddress { (at + 1).copyMemory(from: from, byteCount: name.count) }
        at += 1 + name.count
        at.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        at.storeBytes(of: UInt8(ascii: " "), toByteOffset: 1, as: UInt8.self)
        at.storeBytes(of: UInt8(ascii: ":"), toByteOffset: 2, as: UInt8.self)
        at.storeBytes(of: UInt8(ascii: " "), toByteOffset: 3, as: UInt8.self)
        count += separator.count + name.count + 5
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ first: UInt8, _ second: UInt8) {
        reserve(2)
        base[count] = first
        base[count + 1] = second
        count += 2
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    /// The bytes; the storage is freed (an append after it starts a new one).
    mutating func take() -> [UInt8] {
        let bytes = Array(UnsafeBufferPointer(start: base, count: count))
        if capacity > 0 { base.deallocate() }
        base = Self.none
        count = 0
        capacity = 0
        return bytes
    }
}
