import PremainModel

/// Writes a `BinaryInventory` as the JSON `PrettyJSONEncoder` writes for it, byte for byte,
/// without `Codable`: keys are written in their sorted order straight into the buffer, with no
/// tree of nodes, no boxed containers and no sorting. A folder audit's report runs to megabytes,
/// and `Codable` (`PrettyJSONEncoder`) took 75 % more instructions to audit a folder with it
/// (docs/performance.md).
///
/// The keys are not written here: each model type lists them beside its fields, in its
/// `CodingKeys` (`JSONKeyed`), and each `write` below is a `switch` over them, so a key added to
/// the model does not compile until it is written. `AuditJSONWriterTests` checks that every
/// stored field has a key and compares the two writers, key set by key set and byte for byte,
/// on the samples, on system folders and on a value with every optional field set.
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

    // MARK: The model, key by key in each type's `CodingKeys` order (`JSONKeyed`)

    // Each `write` switches over every key of its type without a `default`: a key added to a
    // model type does not compile until it is written here.

    mutating func write(_ binary: BinaryInventory) {
        beginObject()
        for field in BinaryInventory.CodingKeys.allCases {
            switch field {
            case .closure:
                if let closure = binary.closure {
                    key(field)
                    write(closure)
                }
            case .closureSkipped:
                if let skipped = binary.closureSkipped {
                    key(field)
                    string(skipped)
                }
            case .diagnostics:
                key(field)
                strings(binary.diagnostics)
            case .dynamic:
                key(field)
                write(binary.dynamic)
            case .header:
                key(field)
                write(binary.header)
            case .initializers:
                key(field)
                write(binary.initializers)
            case .needed:
                key(field)
                strings(binary.needed)
            case .path:
                key(field)
                string(binary.path)
            case .relocations:
                key(field)
                write(binary.relocations)
            case .sizes:
                key(field)
                write(binary.sizes)
            case .swift:
                if let swift = binary.swift {
                    key(field)
                    write(swift)
                }
            case .symbols:
                key(field)
                write(binary.symbols)
            case .toolchain:
                if let toolchain = binary.toolchain {
                    key(field)
                    write(toolchain)
                }
            case .unusedNeeded:
                if let unused = binary.unusedNeeded {
                    key(field)
                    strings(unused)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ header: BinaryInventory.Header) {
        beginObject()
        for field in BinaryInventory.Header.CodingKeys.allCases {
            switch field {
            case .buildID:
                if let id = header.buildID {
                    key(field)
                    string(id)
                }
            case .debugLink:
                if let link = header.debugLink {
                    key(field)
                    string(link)
                }
            case .elfClass:
                key(field)
                string(header.elfClass.rawValue)
            case .endianness:
                key(field)
                string(header.endianness.rawValue)
            case .fileSize:
                key(field)
                number(header.fileSize)
            case .interpreter:
                if let interpreter = header.interpreter {
                    key(field)
                    string(interpreter)
                }
            case .kind:
                key(field)
                string(header.kind.rawValue)
            case .machine:
                key(field)
                string(header.machine)
            case .machineName:
                key(field)
                string(header.machineName)
            case .soname:
                if let soname = header.soname {
                    key(field)
                    string(soname)
                }
            case .stripped:
                key(field)
                bool(header.stripped)
            }
        }
        endObject()
    }

    private mutating func write(_ dynamic: BinaryInventory.DynamicInfo) {
        beginObject()
        for field in BinaryInventory.DynamicInfo.CodingKeys.allCases {
            key(field)
            switch field {
            case .bindNow: bool(dynamic.bindNow)
            case .gnuHash: bool(dynamic.gnuHash)
            case .noDefaultLib: bool(dynamic.noDefaultLib)
            case .rpath: strings(dynamic.rpath)
            case .runpath: strings(dynamic.runpath)
            case .symbolVersioning: bool(dynamic.symbolVersioning)
            case .sysvHash: bool(dynamic.sysvHash)
            case .textRel: bool(dynamic.textRel)
            }
        }
        endObject()
    }

    private mutating func write(_ census: RelocationCensus) {
        beginObject()
        for field in RelocationCensus.CodingKeys.allCases {
            key(field)
            switch field {
            case .copy: number(census.copy)
            case .irelative: number(census.irelative)
            case .none: number(census.none)
            case .plt: number(census.plt)
            case .relative: number(census.relative)
            case .relrAddresses: number(census.relrAddresses)
            case .symbolic: number(census.symbolic)
            case .tables:
                beginArray()
                for table in census.tables {
                    element()
                    write(table)
                }
                endArray()
            case .tls: number(census.tls)
            case .total: number(census.total)
            }
        }
        endObject()
    }

    private mutating func write(_ table: RelocationCensus.Table) {
        beginObject()
        for field in RelocationCensus.Table.CodingKeys.allCases {
            key(field)
            switch field {
            case .entries: number(table.entries)
            case .format: string(table.format.rawValue)
            case .name: string(table.name)
            }
        }
        endObject()
    }

    private mutating func write(_ symbols: SymbolCensus) {
        beginObject()
        for field in SymbolCensus.CodingKeys.allCases {
            switch field {
            case .exported:
                key(field)
                number(symbols.exported)
            case .exportedByType:
                key(field)
                write(symbols.exportedByType)
            case .exportedNames:
                if let names = symbols.exportedNames {
                    key(field)
                    strings(names)
                }
            case .imported:
                key(field)
                number(symbols.imported)
            case .importedByType:
                key(field)
                write(symbols.importedByType)
            case .importedNames:
                if let names = symbols.importedNames {
                    key(field)
                    strings(names)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ byType: SymbolCensus.ByType) {
        beginObject()
        for field in SymbolCensus.ByType.CodingKeys.allCases {
            key(field)
            switch field {
            case .function: number(byType.function)
            case .ifunc: number(byType.ifunc)
            case .object: number(byType.object)
            case .other: number(byType.other)
            case .tls: number(byType.tls)
            }
        }
        endObject()
    }

    private mutating func write(_ census: InitializerCensus) {
        beginObject()
        for field in InitializerCensus.CodingKeys.allCases {
            key(field)
            switch field {
            case .ctors: number(census.ctors)
            case .dtInit: bool(census.dtInit)
            case .entries:
                beginArray()
                for entry in census.entries {
                    element()
                    write(entry)
                }
                endArray()
            case .initArray: number(census.initArray)
            case .preinitArray: number(census.preinitArray)
            case .toolchain: number(census.toolchain)
            case .total: number(census.total)
            }
        }
        endObject()
    }

    private mutating func write(_ entry: InitializerInfo) {
        beginObject()
        for field in InitializerInfo.CodingKeys.allCases {
            switch field {
            case .address:
                if let address = entry.address {
                    key(field)
                    string(address)
                }
            case .demangled:
                if let demangled = entry.demangled {
                    key(field)
                    string(demangled)
                }
            case .index:
                key(field)
                number(entry.index)
            case .kind:
                key(field)
                string(entry.kind.rawValue)
            case .location:
                if let location = entry.location {
                    key(field)
                    write(location)
                }
            case .resolution:
                key(field)
                string(entry.resolution.rawValue)
            case .source:
                key(field)
                string(entry.source.rawValue)
            case .symbol:
                if let symbol = entry.symbol {
                    key(field)
                    string(symbol)
                }
            case .toolchain:
                key(field)
                bool(entry.toolchain)
            case .translationUnit:
                if let unit = entry.translationUnit {
                    key(field)
                    string(unit)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ location: SourceLocation) {
        beginObject()
        for field in SourceLocation.CodingKeys.allCases {
            key(field)
            switch field {
            case .file: string(location.file)
            case .line: number(location.line)
            }
        }
        endObject()
    }

    private mutating func write(_ swift: SwiftCensus) {
        beginObject()
        for field in SwiftCensus.CodingKeys.allCases {
            key(field)
            switch field {
            case .defaultArguments: write(swift.defaultArguments)
            case .lazyGlobals: write(swift.lazyGlobals)
            case .metadataSections:
                beginObject()
                for name in swift.metadataSections.keys.sorted(by: { PrettyJSONEncoder.compare($0, $1) < 0 }) {
                    element()
                    string(name)
                    out.append(Self.colon)
                    number(swift.metadataSections[name] ?? 0)
                }
                endObject()
            }
        }
        endObject()
    }

    private mutating func write(_ suspects: [SwiftSuspect]) {
        beginArray()
        for suspect in suspects {
            element()
            write(suspect)
        }
        endArray()
    }

    private mutating func write(_ suspect: SwiftSuspect) {
        beginObject()
        for field in SwiftSuspect.CodingKeys.allCases {
            switch field {
            case .address:
                key(field)
                string(suspect.address)
            case .demangled:
                if let demangled = suspect.demangled {
                    key(field)
                    string(demangled)
                }
            case .location:
                if let location = suspect.location {
                    key(field)
                    write(location)
                }
            case .size:
                key(field)
                number(suspect.size)
            case .symbol:
                key(field)
                string(suspect.symbol)
            }
        }
        endObject()
    }

    private mutating func write(_ sizes: SizeCensus) {
        beginObject()
        for field in SizeCensus.CodingKeys.allCases {
            switch field {
            case .basis:
                if let basis = sizes.basis {
                    key(field)
                    string(basis.rawValue)
                }
            case .bss:
                key(field)
                number(sizes.bss)
            case .data:
                key(field)
                number(sizes.data)
            case .file:
                key(field)
                number(sizes.file)
            case .relro:
                key(field)
                number(sizes.relro)
            case .rodata:
                key(field)
                number(sizes.rodata)
            case .text:
                key(field)
                number(sizes.text)
            case .writableRodata:
                if let writable = sizes.writableRodata {
                    key(field)
                    number(writable)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ toolchain: BuildToolchain) {
        beginObject()
        for field in BuildToolchain.CodingKeys.allCases {
            switch field {
            case .autolinkEntries:
                key(field)
                strings(toolchain.autolinkEntries)
            case .comments:
                key(field)
                strings(toolchain.comments)
            case .evidence:
                key(field)
                string(toolchain.evidence.rawValue)
            case .languages:
                key(field)
                strings(toolchain.languages.map(\.rawValue))
            case .linker:
                key(field)
                string(toolchain.linker.rawValue)
            case .linkerVersion:
                if let version = toolchain.linkerVersion {
                    key(field)
                    string(version)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ closure: DependencyClosure) {
        beginObject()
        for field in DependencyClosure.CodingKeys.allCases {
            switch field {
            case .missing:
                key(field)
                beginArray()
                for missing in closure.missing {
                    element()
                    write(missing)
                }
                endArray()
            case .objects:
                key(field)
                beginArray()
                for object in closure.objects {
                    element()
                    write(object)
                }
                endArray()
            case .program:
                if let program = closure.program {
                    key(field)
                    write(program)
                }
            case .top:
                key(field)
                beginArray()
                for share in closure.top {
                    element()
                    write(share)
                }
                endArray()
            case .totals:
                if let totals = closure.totals {
                    key(field)
                    write(totals)
                }
            case .unusedNeeded:
                key(field)
                strings(closure.unusedNeeded)
            }
        }
        endObject()
    }

    private mutating func write(_ missing: MissingLibrary) {
        beginObject()
        for field in MissingLibrary.CodingKeys.allCases {
            key(field)
            switch field {
            case .name: string(missing.name)
            case .neededBy: string(missing.neededBy)
            case .searched: strings(missing.searched)
            case .wrongClass: strings(missing.wrongClass)
            }
        }
        endObject()
    }

    private mutating func write(_ totals: ClosureTotals) {
        beginObject()
        for field in ClosureTotals.CodingKeys.allCases {
            key(field)
            switch field {
            case .exported: number(totals.exported)
            case .initializers: number(totals.initializers)
            case .lookups: number(totals.lookups)
            case .objects: number(totals.objects)
            case .relocations: write(totals.relocations)
            }
        }
        endObject()
    }

    /// As `ClosureObject.encode(to:)` writes it: by id when the table holds it (and its loader,
    /// unless the program loaded it), else in full.
    private mutating func write(_ object: ClosureObject) {
        beginObject()
        let reference = objects?.reference(for: object)
        for field in ClosureObject.CodingKeys.allCases {
            switch field {
            case .depth:
                key(field)
                number(object.depth)
            case .foundVia:
                key(field)
                string(object.foundVia.rawValue)
            case .neededBy:
                if let reference {
                    if let loader = reference.loader {
                        key(field)
                        number(loader)
                    }
                } else {
                    key(field)
                    string(object.neededBy)
                }
            case .object:
                if let reference {
                    key(field)
                    number(reference.id)
                }
            case .path:
                if reference == nil {
                    key(field)
                    string(object.path)
                }
            case .realPath:
                if reference == nil {
                    key(field)
                    string(object.realPath)
                }
            case .requestedName:
                key(field)
                string(object.requestedName)
            case .searchDirectory:
                if let directory = object.searchDirectory {
                    key(field)
                    string(directory)
                }
            case .soname:
                if reference == nil, let soname = object.soname {
                    key(field)
                    string(soname)
                }
            case .system:
                if reference == nil {
                    key(field)
                    bool(object.system)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ cost: ObjectCost) {
        beginObject()
        for field in ObjectCost.CodingKeys.allCases {
            key(field)
            switch field {
            case .bindNow: bool(cost.bindNow)
            case .exported: number(cost.exported)
            case .initializers: number(cost.initializers)
            case .lookups: number(cost.lookups)
            case .relocations: write(cost.relocations)
            }
        }
        endObject()
    }

    /// As `ObjectShare.encode(to:)` writes it: by id when the table holds its path, else by
    /// path and soname.
    private mutating func write(_ share: ObjectShare) {
        beginObject()
        let id = objects?.id(ofPath: share.path)
        for field in ObjectShare.CodingKeys.allCases {
            switch field {
            case .exported:
                key(field)
                number(share.exported)
            case .initializers:
                key(field)
                number(share.initializers)
            case .lookups:
                key(field)
                number(share.lookups)
            case .object:
                if let id {
                    key(field)
                    number(id)
                }
            case .path:
                if id == nil {
                    key(field)
                    string(share.path)
                }
            case .relocationShare:
                key(field)
                number(share.relocationShare)
            case .relocations:
                key(field)
                number(share.relocations)
            case .soname:
                if id == nil, let soname = share.soname {
                    key(field)
                    string(soname)
                }
            }
        }
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
            Self.separator.withUTF8Buffer {
                out.append(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[2..<(2 + count)]))
            }
            remaining -= count
        }
    }

    /// Before each member or element: the separator (unless it is the first: the container
    /// was just opened, so the last byte is its newline) and the indentation.
    private mutating func element() {
        if out.last != 0x0a { out.append(UInt8(ascii: ","), 0x0a) }
        indent()
    }

    /// A member's key (its `CodingKeys` name: plain ASCII, no escaping needed) and the colon,
    /// after the separator and the indentation: one reservation and a few copies, as a report
    /// writes millions of keys.
    private mutating func key<Field: CodingKey>(_ field: Field) {
        var name = field.stringValue
        name.withUTF8 { key(UnsafeRawBufferPointer($0)) }
    }

    private mutating func key(_ name: UnsafeRawBufferPointer) {
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
            let range = (first ? 2 : 0)..<(2 + indentation)
            out.appendKey(
                separator: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(separator)[range]), name: name)
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
