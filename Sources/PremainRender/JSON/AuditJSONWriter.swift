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

    // MARK: Several values in one buffer (`ParallelAuditJSON` on one thread)

    /// How many bytes are written and not yet flushed.
    var byteCount: Int { out.byteCount }

    /// Bytes written as they are, between values.
    mutating func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        out.append(bytes)
    }

    mutating func appendRaw(_ text: StaticString) {
        out.append(text)
    }

    /// Drops what was written after the first `count` bytes, and the failure: to write a value
    /// again another way.
    mutating func rewind(to count: Int) {
        out.truncate(to: count)
        failed = false
    }

    /// Hands the bytes written so far to `body`, then empties the buffer, keeping its storage;
    /// `body`'s answer.
    mutating func flush(_ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        defer { out.truncate(to: 0) }
        return out.withBytes(body)
    }

    /// Frees the buffer (a writer is not freed on its own).
    mutating func discard() {
        _ = out.take()
    }

    // MARK: The model, key by key in each type's `CodingKeys` order (`JSONKeyed`)

    // Each `write` switches over every key of its type without a `default`: a key added to a
    // model type does not compile until it is written here.

    mutating func write(_ binary: BinaryInventory) {
        withUnsafePointer(to: binary) { write($0) }
    }

    /// `binary` by its address (passed as a value, it was copied). `index`: where it stands in
    /// the array `objects` was made from, whose references the table then already holds
    /// (`ClosureObjectTable.references(ofBinary:)`); `nil` to look each closure object up.
    mutating func write(_ binary: UnsafePointer<BinaryInventory>, at index: Int? = nil) {
        beginObject()
        for (field, name) in Keys.binary.entries {
            switch field {
            case .closure:
                if let closure = binary.pointee.closure {
                    key(name)
                    write(closure, references: index.flatMap { objects?.references(ofBinary: $0) })
                }
            case .closureSkipped:
                if let skipped = binary.pointee.closureSkipped {
                    key(name)
                    string(skipped)
                }
            case .diagnostics:
                key(name)
                strings(binary.pointee.diagnostics)
            case .dynamic:
                key(name)
                write(binary.pointee.dynamic)
            case .header:
                key(name)
                write(binary.pointee.header)
            case .initializers:
                key(name)
                write(binary.pointee.initializers)
            case .needed:
                key(name)
                strings(binary.pointee.needed)
            case .path:
                key(name)
                string(binary.pointee.path)
            case .relocations:
                key(name)
                write(binary.pointee.relocations)
            case .sizes:
                key(name)
                write(binary.pointee.sizes)
            case .swift:
                if let swift = binary.pointee.swift {
                    key(name)
                    write(swift)
                }
            case .symbols:
                key(name)
                write(binary.pointee.symbols)
            case .toolchain:
                if let toolchain = binary.pointee.toolchain {
                    key(name)
                    write(toolchain)
                }
            case .unusedNeeded:
                if let unused = binary.pointee.unusedNeeded {
                    key(name)
                    strings(unused)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ header: BinaryInventory.Header) {
        beginObject()
        for (field, name) in Keys.header.entries {
            switch field {
            case .buildID:
                if let id = header.buildID {
                    key(name)
                    string(id)
                }
            case .debugLink:
                if let link = header.debugLink {
                    key(name)
                    string(link)
                }
            case .elfClass:
                key(name)
                string(header.elfClass.rawValue)
            case .endianness:
                key(name)
                string(header.endianness.rawValue)
            case .fileSize:
                key(name)
                number(header.fileSize)
            case .interpreter:
                if let interpreter = header.interpreter {
                    key(name)
                    string(interpreter)
                }
            case .kind:
                key(name)
                string(header.kind.rawValue)
            case .machine:
                key(name)
                string(header.machine)
            case .machineName:
                key(name)
                string(header.machineName)
            case .soname:
                if let soname = header.soname {
                    key(name)
                    string(soname)
                }
            case .stripped:
                key(name)
                bool(header.stripped)
            }
        }
        endObject()
    }

    private mutating func write(_ dynamic: BinaryInventory.DynamicInfo) {
        beginObject()
        for (field, name) in Keys.dynamic.entries {
            key(name)
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
        for (field, name) in Keys.relocations.entries {
            key(name)
            switch field {
            case .copy: number(census.copy)
            case .irelative: number(census.irelative)
            case .none: number(census.none)
            case .plt: number(census.plt)
            case .relative: number(census.relative)
            case .relrAddresses: number(census.relrAddresses)
            case .symbolic: number(census.symbolic)
            case .tables: array(census.tables) { $0.write($1) }
            case .tls: number(census.tls)
            case .total: number(census.total)
            }
        }
        endObject()
    }

    private mutating func write(_ table: RelocationCensus.Table) {
        beginObject()
        for (field, name) in Keys.relocationTable.entries {
            key(name)
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
        for (field, name) in Keys.symbols.entries {
            switch field {
            case .exported:
                key(name)
                number(symbols.exported)
            case .exportedByType:
                key(name)
                write(symbols.exportedByType)
            case .exportedNames:
                if let names = symbols.exportedNames {
                    key(name)
                    strings(names)
                }
            case .imported:
                key(name)
                number(symbols.imported)
            case .importedByType:
                key(name)
                write(symbols.importedByType)
            case .importedNames:
                if let names = symbols.importedNames {
                    key(name)
                    strings(names)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ byType: SymbolCensus.ByType) {
        beginObject()
        for (field, name) in Keys.symbolsByType.entries {
            key(name)
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
        for (field, name) in Keys.initializers.entries {
            key(name)
            switch field {
            case .ctors: number(census.ctors)
            case .dtInit: bool(census.dtInit)
            case .entries:
                beginArray()
                census.entries.withUnsafeBufferPointer { entries in
                    for index in entries.indices {
                        element()
                        // By its address: passed as a value, each entry was copied.
                        write(entries.baseAddress! + index)
                    }
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

    private mutating func write(_ entry: UnsafePointer<InitializerInfo>) {
        beginObject()
        for (field, name) in Keys.initializer.entries {
            switch field {
            case .address:
                if let address = entry.pointee.address {
                    key(name)
                    string(address)
                }
            case .demangled:
                if let demangled = entry.pointee.demangled {
                    key(name)
                    string(demangled)
                }
            case .globals:
                if let globals = entry.pointee.globals {
                    key(name)
                    beginArray()
                    for global in globals {
                        element()
                        write(global)
                    }
                    endArray()
                }
            case .index:
                key(name)
                number(entry.pointee.index)
            case .kind:
                key(name)
                string(entry.pointee.kind.rawValue)
            case .location:
                if let location = entry.pointee.location {
                    key(name)
                    write(location)
                }
            case .name:
                if let text = entry.pointee.name {
                    key(name)
                    string(text)
                }
            case .priority:
                if let priority = entry.pointee.priority {
                    key(name)
                    number(priority)
                }
            case .sourceFile:
                if let file = entry.pointee.sourceFile {
                    key(name)
                    string(file)
                }
            case .resolution:
                key(name)
                string(entry.pointee.resolution.rawValue)
            case .source:
                key(name)
                string(entry.pointee.source.rawValue)
            case .symbol:
                if let symbol = entry.pointee.symbol {
                    key(name)
                    string(symbol)
                }
            case .toolchain:
                key(name)
                bool(entry.pointee.toolchain)
            case .translationUnit:
                if let unit = entry.pointee.translationUnit {
                    key(name)
                    string(unit)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ global: ConstructedGlobal) {
        beginObject()
        for (field, name) in Keys.constructedGlobal.entries {
            switch field {
            case .constructor:
                if let constructor = global.constructor {
                    key(name)
                    string(constructor)
                }
            case .includedAt:
                if let included = global.includedAt {
                    key(name)
                    write(included)
                }
            case .location:
                key(name)
                write(global.location)
            case .variable:
                if let variable = global.variable {
                    key(name)
                    string(variable)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ location: SourceLocation) {
        beginObject()
        for (field, name) in Keys.location.entries {
            key(name)
            switch field {
            case .file: string(location.file)
            case .line: number(location.line)
            }
        }
        endObject()
    }

    private mutating func write(_ swift: SwiftCensus) {
        beginObject()
        for (field, name) in Keys.swift.entries {
            key(name)
            switch field {
            case .defaultArguments: write(swift.defaultArguments)
            case .lazyGlobals: write(swift.lazyGlobals)
            case .metadataSections:
                beginObject()
                for name in swift.metadataSections.keys.sorted(by: { PrettyJSONEncoder.compare($0, $1) < 0 }) {
                    element()
                    string(name)
                    out.append(StaticString(" : "))
                    number(swift.metadataSections[name] ?? 0)
                }
                endObject()
            }
        }
        endObject()
    }

    private mutating func write(_ suspects: [SwiftSuspect]) {
        array(suspects) { $0.write($1) }
    }

    /// `items` as a JSON array, each element written by `body`.
    private mutating func array<Item>(_ items: [Item], _ body: (inout Self, Item) -> Void) {
        beginArray()
        for item in items {
            element()
            body(&self, item)
        }
        endArray()
    }

    private mutating func write(_ suspect: SwiftSuspect) {
        beginObject()
        for (field, name) in Keys.swiftSuspect.entries {
            switch field {
            case .address:
                key(name)
                string(suspect.address)
            case .demangled:
                if let demangled = suspect.demangled {
                    key(name)
                    string(demangled)
                }
            case .location:
                if let location = suspect.location {
                    key(name)
                    write(location)
                }
            case .size:
                key(name)
                number(suspect.size)
            case .symbol:
                key(name)
                string(suspect.symbol)
            }
        }
        endObject()
    }

    private mutating func write(_ sizes: SizeCensus) {
        beginObject()
        for (field, name) in Keys.sizes.entries {
            switch field {
            case .basis:
                if let basis = sizes.basis {
                    key(name)
                    string(basis.rawValue)
                }
            case .bss:
                key(name)
                number(sizes.bss)
            case .data:
                key(name)
                number(sizes.data)
            case .file:
                key(name)
                number(sizes.file)
            case .relro:
                key(name)
                number(sizes.relro)
            case .rodata:
                key(name)
                number(sizes.rodata)
            case .text:
                key(name)
                number(sizes.text)
            case .writableRodata:
                if let writable = sizes.writableRodata {
                    key(name)
                    number(writable)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ toolchain: BuildToolchain) {
        beginObject()
        for (field, name) in Keys.toolchain.entries {
            switch field {
            case .autolinkEntries:
                key(name)
                strings(toolchain.autolinkEntries)
            case .comments:
                key(name)
                strings(toolchain.comments)
            case .evidence:
                key(name)
                string(toolchain.evidence.rawValue)
            case .languages:
                key(name)
                strings(toolchain.languages.map(\.rawValue))
            case .linker:
                key(name)
                string(toolchain.linker.rawValue)
            case .linkerVersion:
                if let version = toolchain.linkerVersion {
                    key(name)
                    string(version)
                }
            }
        }
        endObject()
    }

    /// `references`: how its objects and shares are written in schema 2 (`ClosureObjectTable`),
    /// when known.
    private mutating func write(_ closure: DependencyClosure, references: ClosureObjectTable.ClosureReferences?) {
        beginObject()
        for (field, name) in Keys.closure.entries {
            switch field {
            case .missing:
                key(name)
                beginArray()
                for missing in closure.missing {
                    element()
                    write(missing)
                }
                endArray()
            case .objects:
                key(name)
                beginArray()
                let known = references?.objects.count == closure.objects.count ? references?.objects : nil
                // By their addresses: passed as values, the objects were copied.
                closure.objects.withUnsafeBufferPointer { list in
                    for index in list.indices {
                        element()
                        if let known {
                            write(list.baseAddress! + index, reference: known[index])
                        } else {
                            write(list.baseAddress! + index, reference: objects?.reference(for: list[index]))
                        }
                    }
                }
                endArray()
            case .program:
                if let program = closure.program {
                    key(name)
                    write(program)
                }
            case .top:
                key(name)
                beginArray()
                let known = references?.top.count == closure.top.count ? references?.top : nil
                closure.top.withUnsafeBufferPointer { shares in
                    for index in shares.indices {
                        element()
                        if let known {
                            write(shares.baseAddress! + index, id: known[index])
                        } else {
                            write(shares.baseAddress! + index, id: objects?.id(ofPath: shares[index].path))
                        }
                    }
                }
                endArray()
            case .totals:
                if let totals = closure.totals {
                    key(name)
                    write(totals)
                }
            case .unusedNeeded:
                key(name)
                strings(closure.unusedNeeded)
            }
        }
        endObject()
    }

    private mutating func write(_ missing: MissingLibrary) {
        beginObject()
        for (field, name) in Keys.missing.entries {
            key(name)
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
        for (field, name) in Keys.totals.entries {
            key(name)
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
    /// unless the program loaded it), else in full. `reference`: the table's
    /// `reference(for: object)` (`nil` without a table).
    private mutating func write(_ object: UnsafePointer<ClosureObject>, reference: (id: Int, loader: Int?)?) {
        beginObject()
        for (field, name) in Keys.object.entries {
            switch field {
            case .depth:
                key(name)
                number(object.pointee.depth)
            case .foundVia:
                key(name)
                string(object.pointee.foundVia.rawValue)
            case .neededBy:
                if let reference {
                    if let loader = reference.loader {
                        key(name)
                        number(loader)
                    }
                } else {
                    key(name)
                    string(object.pointee.neededBy)
                }
            case .object:
                if let reference {
                    key(name)
                    number(reference.id)
                }
            case .path:
                if reference == nil {
                    key(name)
                    string(object.pointee.path)
                }
            case .realPath:
                if reference == nil {
                    key(name)
                    string(object.pointee.realPath)
                }
            case .requestedName:
                key(name)
                string(object.pointee.requestedName)
            case .searchDirectory:
                if let directory = object.pointee.searchDirectory {
                    key(name)
                    string(directory)
                }
            case .soname:
                if reference == nil, let soname = object.pointee.soname {
                    key(name)
                    string(soname)
                }
            case .system:
                if reference == nil {
                    key(name)
                    bool(object.pointee.system)
                }
            }
        }
        endObject()
    }

    private mutating func write(_ cost: ObjectCost) {
        beginObject()
        for (field, name) in Keys.cost.entries {
            key(name)
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
    /// `id`: the table's `id(ofPath: share.path)` (`nil` without a table).
    private mutating func write(_ share: UnsafePointer<ObjectShare>, id: Int?) {
        beginObject()
        for (field, name) in Keys.share.entries {
            switch field {
            case .exported:
                key(name)
                number(share.pointee.exported)
            case .initializers:
                key(name)
                number(share.pointee.initializers)
            case .lookups:
                key(name)
                number(share.pointee.lookups)
            case .object:
                if let id {
                    key(name)
                    number(id)
                }
            case .path:
                if id == nil {
                    key(name)
                    string(share.pointee.path)
                }
            case .relocationShare:
                key(name)
                number(share.pointee.relocationShare)
            case .relocations:
                key(name)
                number(share.pointee.relocations)
            case .soname:
                if id == nil, let soname = share.pointee.soname {
                    key(name)
                    string(soname)
                }
            }
        }
        endObject()
    }

    // MARK: Keys, made once per type

    /// The keys of every type the writer writes, each made once (not per value written).
    private enum Keys {
        static let binary = JSONKeys(BinaryInventory.CodingKeys.self)
        static let header = JSONKeys(BinaryInventory.Header.CodingKeys.self)
        static let dynamic = JSONKeys(BinaryInventory.DynamicInfo.CodingKeys.self)
        static let relocations = JSONKeys(RelocationCensus.CodingKeys.self)
        static let relocationTable = JSONKeys(RelocationCensus.Table.CodingKeys.self)
        static let symbols = JSONKeys(SymbolCensus.CodingKeys.self)
        static let symbolsByType = JSONKeys(SymbolCensus.ByType.CodingKeys.self)
        static let initializers = JSONKeys(InitializerCensus.CodingKeys.self)
        static let initializer = JSONKeys(InitializerInfo.CodingKeys.self)
        static let constructedGlobal = JSONKeys(ConstructedGlobal.CodingKeys.self)
        static let location = JSONKeys(SourceLocation.CodingKeys.self)
        static let swift = JSONKeys(SwiftCensus.CodingKeys.self)
        static let swiftSuspect = JSONKeys(SwiftSuspect.CodingKeys.self)
        static let sizes = JSONKeys(SizeCensus.CodingKeys.self)
        static let toolchain = JSONKeys(BuildToolchain.CodingKeys.self)
        static let closure = JSONKeys(DependencyClosure.CodingKeys.self)
        static let missing = JSONKeys(MissingLibrary.CodingKeys.self)
        static let totals = JSONKeys(ClosureTotals.CodingKeys.self)
        static let object = JSONKeys(ClosureObject.CodingKeys.self)
        static let cost = JSONKeys(ObjectCost.CodingKeys.self)
        static let share = JSONKeys(ObjectShare.CodingKeys.self)
        static let record = JSONKeys(ClosureObjectRecord.CodingKeys.self)
    }

    /// The `objects` table of a schema-2 report (`ClosureObjectTable.records`), as `Codable`
    /// writes the array.
    mutating func write(_ records: [ClosureObjectRecord]) {
        array(records) { $0.write($1) }
    }

    private mutating func write(_ record: ClosureObjectRecord) {
        beginObject()
        for (field, name) in Keys.record.entries {
            switch field {
            case .id:
                key(name)
                number(record.id)
            case .path:
                key(name)
                string(record.path)
            case .realPath:
                key(name)
                string(record.realPath)
            case .soname:
                if let soname = record.soname {
                    key(name)
                    string(soname)
                }
            case .system:
                key(name)
                bool(record.system)
            }
        }
        endObject()
    }

    // MARK: Bytes, as PrettyJSONEncoder.write lays them out

    private mutating func beginObject() {
        out.append(UInt8(ascii: "{"), 0x0a)
        level += 1
    }

    private mutating func endObject() {
        level -= 1
        out.appendClose(UInt8(ascii: "}"), indentation: level * 2)
    }

    private mutating func beginArray() {
        out.append(UInt8(ascii: "["), 0x0a)
        level += 1
    }

    private mutating func endArray() {
        level -= 1
        out.appendClose(UInt8(ascii: "]"), indentation: level * 2)
    }

    /// Before each element: the separator (unless it is the first: the container was just
    /// opened, so the last byte is its newline) and the indentation.
    private mutating func element() {
        out.appendSeparator(indentation: level * 2)
    }

    /// A member's key and the colon (bytes made once per key), after the separator and the
    /// indentation.
    @inline(__always)
    private mutating func key(_ name: JSONKey) {
        out.appendMember(indentation: level * 2, key: name)
    }

    /// As `PrettyJSONEncoder.writeString`: the bytes as they are unless one needs escaping.
    private mutating func string(_ text: String) {
        let plain = text.utf8.withContiguousStorageIfAvailable { out.appendString(UnsafeRawBufferPointer($0)) }
        if plain == true { return }
        var text = text
        text.withUTF8 { bytes in
            if plain == nil, out.appendString(UnsafeRawBufferPointer(bytes)) { return }
            var escaped: [UInt8] = [UInt8(ascii: "\"")]
            PrettyJSONEncoder.writeEscaped(bytes, into: &escaped)
            escaped.append(UInt8(ascii: "\""))
            escaped.withUnsafeBytes { out.append($0) }
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
            out.appendDecimal(UInt64(value.magnitude))
        } else {
            out.appendDecimal(UInt64(value))
        }
    }

    private mutating func number(_ value: UInt) {
        out.appendDecimal(UInt64(value))
    }

    private mutating func number(_ value: UInt64) {
        out.appendDecimal(value)
    }

    /// As `PrettyJSONEncoder.number` (`description` without a trailing `.0`), from the bytes
    /// `write(to:)` hands over, with no `String`; a value JSON cannot hold marks the writer
    /// failed.
    private mutating func number(_ value: Double) {
        guard value.isFinite else {
            failed = true
            return
        }
        var text = ShortASCII()
        value.write(to: &text)
        text.withBytes { bytes in
            let dotZero =
                bytes.count >= 2 && bytes[bytes.count - 2] == UInt8(ascii: ".")
                && bytes[bytes.count - 1] == UInt8(ascii: "0")
            out.append(UnsafeRawBufferPointer(rebasing: bytes[..<(bytes.count - (dotZero ? 2 : 0))]))
        }
    }
}

/// A `TextOutputStream` for short ASCII text (a number's `write(to:)`, which hands its bytes to
/// `_writeASCII`): up to 32 bytes in place, more (or a `String`) in an array.
struct ShortASCII: TextOutputStream {
    private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var count = 0
    private var spilled: [UInt8]?

    mutating func write(_ string: String) {
        spill()
        spilled?.append(contentsOf: string.utf8)
    }

    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        guard spilled == nil, count + buffer.count <= 32 else {
            spill()
            spilled?.append(contentsOf: buffer)
            return
        }
        let at = count
        withUnsafeMutableBytes(of: &storage) {
            UnsafeMutableRawBufferPointer(rebasing: $0[at..<(at + buffer.count)]).copyMemory(
                from: UnsafeRawBufferPointer(buffer))
        }
        count += buffer.count
    }

    /// From here on the text is in `spilled`.
    private mutating func spill() {
        guard spilled == nil else { return }
        let at = count
        spilled = withUnsafeBytes(of: &storage) { Array($0[..<at]) }
    }

    /// The text written.
    mutating func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let spilled { return spilled.withUnsafeBytes(body) }
        let at = count
        return withUnsafeBytes(of: &storage) { body(UnsafeRawBufferPointer(rebasing: $0[..<at])) }
    }
}

/// A member's key as the writer writes it, `"name" : `: its bytes, padded with spaces to a
/// multiple of 8 (copied 8 at a time). Made once per key (`JSONKeys`) and never freed.
struct JSONKey: @unchecked Sendable {
    let bytes: UnsafeRawPointer
    let count: Int

    /// The bytes copied, a multiple of 8.
    var paddedCount: Int { (count + 7) & ~7 }
}

/// The keys of one model type: its `CodingKeys` cases in order (the JSON's), each with its
/// bytes (`JSONKey`), made from the case's `stringValue` once, when the type is first written.
struct JSONKeys<Field: CodingKey & CaseIterable>: Sendable {
    let entries: [(field: Field, name: JSONKey)]

    init(_ type: Field.Type) {
        let fields = Array(Field.allCases)
        // A CodingKeys name is plain ASCII (a Swift identifier): no escaping.
        let texts = fields.map { Array("\"\($0.stringValue)\" : ".utf8) }
        let total = texts.reduce(0) { $0 + (($1.count + 7) & ~7) }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(total, 8), alignment: 8)
        var offset = 0
        var entries: [(field: Field, name: JSONKey)] = []
        for (field, text) in zip(fields, texts) {
            let padded = (text.count + 7) & ~7
            (storage + offset).initializeMemory(as: UInt8.self, repeating: 0x20, count: padded)
            text.withUnsafeBytes { (storage + offset).copyMemory(from: $0.baseAddress!, byteCount: text.count) }
            entries.append((field, JSONKey(bytes: UnsafeRawPointer(storage + offset), count: text.count)))
            offset += padded
        }
        self.entries = entries
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

    /// Room for `extra` more bytes (the multi-byte appends below store up to 7 bytes past what
    /// they keep, always within what they reserved).
    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        grow(extra)
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
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

    private static let spaces: UInt64 = 0x2020_2020_2020_2020

    /// At `at`: `,` and a newline unless the bytes so far end with a newline (a container just
    /// opened), then `indentation` spaces (stored 8 at a time: up to 7 more are written past
    /// them, to be overwritten). Returns where the indentation ends.
    @inline(__always)
    private func separate(indentation: Int) -> UnsafeMutableRawPointer {
        var at = UnsafeMutableRawPointer(base + count)
        if count == 0 || base[count - 1] != 0x0a {
            at.storeBytes(of: UInt8(ascii: ","), as: UInt8.self)
            at.storeBytes(of: 0x0a, toByteOffset: 1, as: UInt8.self)
            at += 2
        }
        var offset = 0
        while offset < indentation {
            at.storeBytes(of: Self.spaces, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        return at + indentation
    }

    /// The separator before an element and its indentation.
    @inline(__always)
    mutating func appendSeparator(indentation: Int) {
        reserve(indentation + 10)
        count = separate(indentation: indentation) - UnsafeMutableRawPointer(base)
    }

    /// The separator before a member, its indentation, and `key` (`"name" : `).
    @inline(__always)
    mutating func appendMember(indentation: Int, key: JSONKey) {
        reserve(indentation + 2 + key.paddedCount)
        let at = separate(indentation: indentation)
        var offset = 0
        while offset < key.count {
            at.storeBytes(
                of: key.bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self), toByteOffset: offset,
                as: UInt64.self)
            offset += 8
        }
        count = at - UnsafeMutableRawPointer(base) + key.count
    }

    /// A newline, `indentation` spaces and `bracket`.
    @inline(__always)
    mutating func appendClose(_ bracket: UInt8, indentation: Int) {
        reserve(indentation + 10)
        let at = UnsafeMutableRawPointer(base + count)
        at.storeBytes(of: 0x0a, as: UInt8.self)
        var offset = 0
        while offset < indentation {
            at.storeBytes(of: Self.spaces, toByteOffset: 1 + offset, as: UInt64.self)
            offset += 8
        }
        at.storeBytes(of: bracket, toByteOffset: 1 + indentation, as: UInt8.self)
        count += indentation + 2
    }

    /// `bytes` between quotes, when none needs escaping (`PrettyJSONEncoder.needsEscape`):
    /// checked 8 at a time as they are copied. `false`, and nothing appended, when one does.
    @inline(__always)
    mutating func appendString(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let length = bytes.count
        reserve(length + 2)
        let start = UnsafeMutableRawPointer(base + count)
        start.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        if let source = bytes.baseAddress {
            var offset = 0
            while offset + 8 <= length {
                let word = source.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if Self.needsEscape(word) { return false }
                start.storeBytes(of: word, toByteOffset: 1 + offset, as: UInt64.self)
                offset += 8
            }
            while offset < length {
                let byte = source.load(fromByteOffset: offset, as: UInt8.self)
                if PrettyJSONEncoder.needsEscape(byte) { return false }
                start.storeBytes(of: byte, toByteOffset: 1 + offset, as: UInt8.self)
                offset += 1
            }
        }
        start.storeBytes(of: UInt8(ascii: "\""), toByteOffset: 1 + length, as: UInt8.self)
        count += length + 2
        return true
    }

    /// `true` when one of the 8 bytes of `word` is one `PrettyJSONEncoder.needsEscape` takes:
    /// below 0x20, `"`, `\` or 0xF4 (the exact tests of a zero byte and of a byte below n).
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let below = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* 0x5c)
        let raw = word ^ (ones &* 0xF4)
        let zero = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((raw &- ones) & ~raw)
        return (below | zero) & (ones &* 0x80) != 0
    }

    /// "00" to "99": two digits at a time.
    private static let pairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Decimal digits, as `String(value)` writes them.
    @inline(__always)
    mutating func appendDecimal(_ value: UInt64) {
        reserve(20)
        if value < 10 {
            base[count] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value)
            count += 1
            return
        }
        var digits = 2
        var bound: UInt64 = 100
        while digits < 20, value >= bound {
            digits += 1
            bound = bound &* 10
        }
        let pairs = Self.pairs.utf8Start
        var rest = value
        var at = count + digits
        while rest >= 100 {
            let pair = Int(truncatingIfNeeded: rest % 100) * 2
            rest /= 100
            at -= 2
            base[at] = pairs[pair]
            base[at + 1] = pairs[pair + 1]
        }
        if rest >= 10 {
            let pair = Int(truncatingIfNeeded: rest) * 2
            base[at - 2] = pairs[pair]
            base[at - 1] = pairs[pair + 1]
        } else {
            base[at - 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest)
        }
        count += digits
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

    var byteCount: Int { count }

    /// Keeps the first `newCount` bytes.
    mutating func truncate(to newCount: Int) {
        count = min(max(newCount, 0), count)
    }

    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: base, count: count))
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
