import Foundation
import PremainAudit
import PremainModel
import PremainTestSupport
import Testing

@testable import PremainRender

/// `AuditJSONWriter` writes audit values without `Codable`: its bytes must be the `Codable`
/// encoder's, for every field of the model, in both JSON schemas.
@Suite struct AuditJSONWriterTests {
    func codable(_ binary: BinaryInventory, table: ClosureObjectTable?) throws -> [UInt8] {
        let userInfo: [CodingUserInfoKey: any Sendable] = table.map { [ClosureObjectTable.userInfoKey: $0] } ?? [:]
        return try PrettyJSONEncoder.encode(binary, level: 2, userInfo: userInfo)
    }

    func written(_ binary: BinaryInventory, table: ClosureObjectTable?) -> [UInt8] {
        var writer = AuditJSONWriter(level: 2, objects: table)
        writer.write(binary)
        #expect(!writer.failed)
        return writer.finish()
    }

    @Test func writesWhatCodableWritesForRealFilesInBothSchemas() throws {
        let report = BatchAudit(workers: 2).run([
            try Samples.directory.get(), "/opt/swift/usr/lib/swift/linux", "/bin/ls",
        ])
        #expect(report.binaries.count > 20)
        #expect(
            report.binaries.contains { $0.swift != nil }
                && report.binaries.contains { $0.closure?.missing.isEmpty == false })
        let table = ClosureObjectTable(report.binaries)
        for binary in report.binaries {
            #expect(written(binary, table: nil) == (try codable(binary, table: nil)), "\(binary.path)")
            #expect(written(binary, table: table) == (try codable(binary, table: table)), "\(binary.path)")
        }
        for version in [1, 2] {
            #expect(
                try ParallelAuditJSON.render(report, workers: 2, schemaVersion: version)
                    == (try ParallelAuditJSON.render(report, workers: 1, schemaVersion: version)))
        }
        // The whole document of schema 2 (the objects table and the fields after the binaries
        // included) as Codable writes it.
        var summarized = report
        summarized.summary = OffenderSummary(report.binaries, top: 3)
        summarized.skipped = SkippedFiles(objects: 2, objectExtensions: [".o"], others: 1, notReports: ["a\"b"])
        #expect(
            try ParallelAuditJSON.render(summarized, workers: 2, schemaVersion: 2)
                == (try JSONRenderer.render(summarized, userInfo: [ClosureObjectTable.userInfoKey: table])))
    }

    /// Strings and numbers byte for byte as `PrettyJSONEncoder` writes them: every byte that
    /// needs escaping at every place of the 8-byte words the writer checks, and doubles.
    @Test func writesStringsAndNumbersAsTheEncoder() throws {
        var texts = ["", "a", "/usr/lib/x86_64-linux-gnu/libc.so.6", "✓ é", "\u{202E}"]
        for special: UInt8 in [0x00, 0x09, 0x0a, 0x1f, 0x22, 0x5c, 0x7f, 0x80, 0xF3, 0xF4, 0xF5, 0xFF] {
            for length in 1...17 {
                for place in 0..<length {
                    var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    bytes[place] = special
                    texts.append(String(decoding: bytes, as: UTF8.self))
                }
            }
        }
        texts.append(String(decoding: [0xF4, 0x8F, 0xBF, 0xBF, 0x41], as: UTF8.self))
        var missing = MissingLibrary(name: "", neededBy: "", searched: texts, wrongClass: [])
        var doubles: [Double] = [
            0, -0.0, 1, 0.5, 1e-7, 1e16, 123.25, 1.0 / 3, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { doubles.append(Double(bitPattern: generator.next())) }
        var binary = Self.everyField()
        let shares = doubles.filter(\.isFinite).map {
            ObjectShare(path: "p", relocations: 1, relocationShare: $0, lookups: 2, initializers: 3, exported: 4)
        }
        binary.closure?.top = shares
        missing.wrongClass = ["\u{1b}"]
        binary.closure?.missing = [missing]
        #expect(written(binary, table: nil) == (try codable(binary, table: nil)))
    }

    /// Every optional of the model set and every array filled (checked by reflection, so a
    /// field added to the model and not to this value fails here), names that need escaping.
    static func everyField() -> BinaryInventory {
        let odd = "we\"ird\\name\u{1b}[31m\u{202E}\t✓"
        var relocations = RelocationCensus()
        (relocations.relative, relocations.symbolic, relocations.plt, relocations.copy) = (291_460, 6495, 4104, 1)
        (relocations.irelative, relocations.tls, relocations.total, relocations.none, relocations.relrAddresses) = (
            2, 6, 302_068, 3, 17
        )
        relocations.tables = [
            .init(name: ".rela.dyn", format: .rela, entries: 297_961), .init(name: odd, format: .relr, entries: 0),
        ]
        var symbols = SymbolCensus()
        (symbols.exported, symbols.imported) = (2994, 4037)
        (symbols.exportedByType.function, symbols.exportedByType.object, symbols.exportedByType.ifunc) = (2993, 1, 5)
        (symbols.importedByType.function, symbols.importedByType.tls, symbols.importedByType.other) = (3243, 2, 4)
        symbols.exportedNames = ["main", odd]
        symbols.importedNames = ["puts@GLIBC_2.2.5"]
        var initializers = InitializerCensus()
        (initializers.initArray, initializers.preinitArray, initializers.ctors, initializers.dtInit) = (2, 1, 0, true)
        (initializers.total, initializers.toolchain) = (4, 1)
        var entry = InitializerInfo(
            source: .initArray, index: 1, address: "0x1234", resolution: .relativeRelocation,
            symbol: "_GLOBAL__sub_I_a.cpp", demangled: odd, translationUnit: "a.cpp",
            kind: .cxxTranslationUnit, toolchain: false)
        entry.location = SourceLocation(file: "src/a.cpp", line: 12)
        entry.sourceFile = "src/a.cpp"
        entry.name = "src/a.cpp"
        entry.priority = 101
        entry.globals = [
            ConstructedGlobal(
                variable: "std::__ioinit", constructor: "std::ios_base::Init::Init()",
                location: SourceLocation(file: "/usr/include/c++/12/iostream", line: 74),
                includedAt: SourceLocation(file: "/src/a.cpp", line: 2)),
            ConstructedGlobal(variable: nil, constructor: nil, location: SourceLocation(file: "/src/a.cpp", line: 9)),
        ]
        initializers.entries = [
            entry,
            InitializerInfo(
                source: .dtInit, index: 0, address: nil, resolution: .unresolved,
                symbol: nil, demangled: nil, translationUnit: nil, kind: .unknown,
                toolchain: true),
        ]
        var suspect = SwiftSuspect(
            symbol: "$s4main1xSivpWZ", demangled: "one-time initialization function for main.x",
            address: "0x99", size: 42)
        suspect.location = SourceLocation(file: "main.swift", line: 3)
        let swift = SwiftCensus(
            lazyGlobals: [suspect], defaultArguments: [suspect],
            metadataSections: ["swift5_typeref": 24174, "swift5_fieldmd": 37108, odd: 1])
        let cost = ObjectCost(relocations: relocations, initializers: 3, exported: 12, lookups: 7, bindNow: true)
        var object = ClosureObject(
            path: "/lib/libc.so.6", realPath: "/usr/lib/libc.so.6", soname: "libc.so.6",
            requestedName: "libc.so.6", foundVia: .ldSoCache, searchDirectory: "/lib",
            depth: 1, neededBy: "/bin/app", needed: ["ld-linux-x86-64.so.2"], system: true, cost: cost)
        var deeper = object
        (deeper.path, deeper.realPath, deeper.soname, deeper.depth, deeper.neededBy) = (
            "/lib/" + odd, "/lib/" + odd, odd, 2, "/lib/libc.so.6"
        )
        deeper.foundVia = .runpath
        object.cost = cost
        var closure = DependencyClosure(
            objects: [object, deeper],
            missing: [
                MissingLibrary(
                    name: odd, neededBy: "/bin/app", searched: ["/lib", "/usr/lib"],
                    wrongClass: ["/lib32/" + odd])
            ],
            totals: ClosureTotals(program: cost, objects: [object, deeper]),
            top: ObjectShare.top([object, deeper], program: cost, count: 5), program: cost)
        closure.unusedNeeded = [odd]
        var binary = BinaryInventory(
            path: "/bin/app",
            header: .init(
                elfClass: .elf64, endianness: .little, machine: "x86-64", machineName: "EM_X86_64",
                kind: .pieExecutable, interpreter: "/lib64/ld-linux-x86-64.so.2", soname: odd,
                buildID: "abcdef", stripped: false, debugLink: "app.debug", fileSize: UInt64.max),
            needed: ["libc.so.6", odd],
            dynamic: .init(
                rpath: ["$ORIGIN"], runpath: [odd], bindNow: true, gnuHash: true, sysvHash: false, textRel: true,
                symbolVersioning: true, noDefaultLib: false),
            relocations: relocations, symbols: symbols, initializers: initializers, swift: swift,
            sizes: SizeCensus(
                file: 1, text: 2, rodata: 3, data: 4, relro: 5, bss: 6, writableRodata: 7, basis: .sections),
            diagnostics: [odd], closure: closure, unusedNeeded: [odd],
            toolchain: BuildToolchain(
                linker: .gold, linkerVersion: "1.16", evidence: .goldNote, languages: [.swift, .cxx],
                comments: ["GCC: (Debian 12.2.0-14) 12.2.0", odd], autolinkEntries: ["-lswiftCore"]))
        binary.closureSkipped = odd
        return binary
    }

    /// Labels of optionals that are nil anywhere in `value` (the transient decoding ids left
    /// out: they are never written).
    static func nilOptionals(_ value: Any, path: String = "") -> [String] {
        var found: [String] = []
        for child in Mirror(reflecting: value).children {
            let label = child.label ?? "?"
            guard !["tableID", "tableNeededBy"].contains(label) else { continue }
            let mirror = Mirror(reflecting: child.value)
            if mirror.displayStyle == .optional {
                if let some = mirror.children.first {
                    found += nilOptionals(some.value, path: path + "." + label)
                } else {
                    found.append(path + "." + label)
                }
            } else if mirror.displayStyle == .collection {
                for element in mirror.children { found += nilOptionals(element.value, path: path + "." + label + "[]") }
            } else if mirror.displayStyle == .struct {
                found += nilOptionals(child.value, path: path + "." + label)
            }
        }
        return found
    }

    /// The model types in `value` (the type itself and every struct of PremainModel below it),
    /// by name, each with one value of it.
    static func modelValues(_ value: Any, into found: inout [String: Any]) {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional, .collection:
            for child in mirror.children { modelValues(child.value, into: &found) }
        case .struct where String(reflecting: type(of: value)).hasPrefix("PremainModel."):
            found[String(reflecting: type(of: value))] = found[String(reflecting: type(of: value))] ?? value
            for child in mirror.children { modelValues(child.value, into: &found) }
        default:
            break
        }
    }

    static func keys<Value: JSONKeyed>(of _: Value) -> (keys: [String], notInJSON: [String]) {
        (Value.CodingKeys.allCases.map(\.stringValue), Value.fieldsNotInJSON)
    }

    /// What `AuditJSONWriter` writes from: every type of the audit model lists its JSON keys
    /// (`JSONKeyed`), sorted as the JSON has them, with a key for every stored field it does not
    /// say it keeps out. A field added to the model without a key fails here; a key added
    /// without being written does not compile.
    @Test func everyTypeOfTheModelListsAKeyForEveryField() {
        var values: [String: Any] = [:]
        Self.modelValues(Self.everyField(), into: &values)
        #expect(values.count >= 20, "\(values.keys.sorted())")
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let keyed = value as? any JSONKeyed else {
                Issue.record("\(name) does not list its JSON keys (JSONKeyed)")
                continue
            }
            let (keys, notInJSON) = Self.keys(of: keyed)
            let fields = Mirror(reflecting: value).children.compactMap(\.label)
            #expect(keys == keys.sorted { PrettyJSONEncoder.compare($0, $1) < 0 }, "\(name): keys out of order")
            #expect(
                fields.filter { !keys.contains($0) && !notInJSON.contains($0) } == [],
                "\(name): fields without a JSON key")
            #expect(notInJSON.filter { !fields.contains($0) } == [], "\(name): fieldsNotInJSON names no field")
        }
    }

    /// Where the key sets of two JSON values differ, object by object ("binaries.closure: only
    /// Codable writes x").
    static func keyDifferences(_ codable: Any, _ written: Any, path: String = "") -> [String] {
        switch (codable, written) {
        case (let left as [String: Any], let right as [String: Any]):
            let onlyCodable = Set(left.keys).subtracting(right.keys).sorted()
            let onlyWriter = Set(right.keys).subtracting(left.keys).sorted()
            var found: [String] = []
            if !onlyCodable.isEmpty { found.append("\(path): only Codable writes \(onlyCodable)") }
            if !onlyWriter.isEmpty { found.append("\(path): only AuditJSONWriter writes \(onlyWriter)") }
            for (key, value) in left.sorted(by: { $0.key < $1.key }) {
                if let other = right[key] { found += keyDifferences(value, other, path: path + "." + key) }
            }
            return found
        case (let left as [Any], let right as [Any]):
            return zip(left, right).enumerated().flatMap { keyDifferences($1.0, $1.1, path: path + "[\($0)]") }
        default:
            return []
        }
    }

    @Test func writesTheKeysCodableWritesForEveryType() throws {
        let binary = Self.everyField()
        for table in [nil, ClosureObjectTable([binary])] {
            let codable = try JSONSerialization.jsonObject(with: Data(try codable(binary, table: table)))
            let written = try JSONSerialization.jsonObject(with: Data(written(binary, table: table)))
            #expect(Self.keyDifferences(codable, written) == [], "schema \(table == nil ? 1 : 2)")
        }
    }

    @Test func writesWhatCodableWritesForEveryFieldOfTheModel() throws {
        let binary = Self.everyField()
        // Only the second initializer leaves its optionals out on purpose (absent keys).
        #expect(
            Self.nilOptionals(binary).filter { !$0.hasPrefix(".initializers.entries[]") }.isEmpty,
            "\(Self.nilOptionals(binary))")
        #expect(written(binary, table: nil) == (try codable(binary, table: nil)))
        let table = ClosureObjectTable([binary])
        #expect(table.records.count == 2)
        #expect(written(binary, table: table) == (try codable(binary, table: table)))
        // A share that is not a number is not JSON: the writer hands it to Codable, which throws.
        var broken = binary
        broken.closure?.top[0].relocationShare = .nan
        var writer = AuditJSONWriter(level: 2, objects: nil)
        writer.write(broken)
        #expect(writer.failed)
        let report = AuditReport(binaries: [broken, binary], errors: [])
        #expect(throws: (any Error).self) { try ParallelAuditJSON.render(report, workers: 2) }
        #expect(throws: (any Error).self) { try ParallelAuditJSON.render(report, workers: 1) }
    }
}
