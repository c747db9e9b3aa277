import ELFValues
import PremainModel

/// Renders an `AuditReport` as readable text that fits `width` columns (100 by default;
/// `TextFit.unlimited` shortens nothing). Names are shortened as `TextFit` allows, never cut.
/// Pure.
public enum AuditTextRenderer {
    public static func render(_ report: AuditReport, maxInitializers: Int = 40, width: Int = 100) -> String {
        report.binaries.map { render($0, maxInitializers: maxInitializers, width: width) }.joined(separator: "\n")
    }

    public static func render(_ binary: BinaryInventory, maxInitializers: Int = 40, width: Int = 100) -> String {
        var out = TextSafety.display(binary.path) + "\n"
        out += header(binary, width: width)
        out += dynamicSection(binary, width: width)
        out += relocationsSection(binary)
        out += symbolsSection(binary)
        out += initializersSection(binary, maxInitializers: maxInitializers, width: width)
        if let swift = binary.swift { out += swiftSection(swift, maxInitializers: maxInitializers, width: width) }
        if !binary.diagnostics.isEmpty {
            out += "\nDiagnostics (tables skipped)\n"
            for diagnostic in binary.diagnostics { out += "  " + TextSafety.display(diagnostic) + "\n" }
        }
        return out
    }

    /// The kind line, identity, sizes and toolchain under the path.
    static func header(_ binary: BinaryInventory, width: Int) -> String {
        let wrapList = { (label: String, items: [String]) in Self.wrapList(label, items, width: width) }
        var out = ""
        let h = binary.header
        var kindLine = "  \(h.elfClass.rawValue) \(h.endianness.rawValue)-endian \(h.machine), \(kindName(h.kind))"
        if let interpreter = h.interpreter { kindLine += ", interpreter \(TextSafety.display(interpreter))" }
        out +=
            TextWrap.lines(kindLine.split(separator: " "), width: width, first: "  ", indent: "    ")
            .joined(separator: "\n") + "\n"
        var idLine: [String] = []
        if let soname = h.soname { idLine.append("soname \(TextSafety.display(soname))") }
        idLine.append("build-id \(h.buildID ?? "none")")
        idLine.append(h.stripped ? "stripped" : "not stripped")
        if let link = h.debugLink { idLine.append("debuglink \(TextSafety.display(link))") }
        out += wrapList("", idLine).replacingFirstSpace()
        out +=
            TextWrap.lines(
                sizeItems(binary.sizes), width: width, first: "  size ",
                indent: "    "
            ).joined(separator: "\n") + "\n"
        if let toolchain = binary.toolchain {
            out +=
                TextWrap.lines(
                    toolchainLine(toolchain).split(separator: " "), width: width, first: "  ", indent: "    "
                )
                .joined(separator: "\n") + "\n"
        }
        return out
    }

    /// "Dynamic": needed libraries, run paths, binding, hash tables, versioning.
    static func dynamicSection(_ binary: BinaryInventory, width: Int) -> String {
        let wrapList = { (label: String, items: [String]) in Self.wrapList(label, items, width: width) }
        var out = ""
        out += "\nDynamic\n"
        var dynamic = TextTable(headers: ["", ""], alignments: [.left, .left], indent: 2, maxWidth: width)
        out += wrapList(
            "needed (\(binary.needed.count)):", binary.needed.isEmpty ? ["none"] : binary.needed.map(TextSafety.display)
        )
        if !binary.dynamic.rpath.isEmpty { dynamic.add(["rpath", binary.dynamic.rpath.joined(separator: ":")]) }
        if !binary.dynamic.runpath.isEmpty { dynamic.add(["runpath", binary.dynamic.runpath.joined(separator: ":")]) }
        let hashes = [binary.dynamic.gnuHash ? "GNU" : nil, binary.dynamic.sysvHash ? "SysV" : nil].compactMap { $0 }
        let statically =
            binary.closureSkipped != nil && binary.needed.isEmpty && !binary.dynamic.gnuHash && !binary.dynamic.sysvHash
        dynamic.add([
            "binding",
            statically
                ? "none (statically linked: no dynamic loader binds anything)"
                : binary.dynamic.bindNow ? "now (BIND_NOW)" : "lazy",
        ])
        dynamic.add(["hash", hashes.isEmpty ? "none" : hashes.joined(separator: " + ")])
        dynamic.add(["versioning", binary.dynamic.symbolVersioning ? "yes" : "no"])
        if binary.dynamic.textRel { dynamic.add(["TEXTREL", "yes: the loader writes to code pages"]) }
        if binary.dynamic.noDefaultLib { dynamic.add(["NODEFLIB", "yes"]) }
        out += dynamic.render()
        if let skipped = binary.closureSkipped { out += "  closure     none: \(skipped)\n" }
        return out
    }

    /// "Relocations the loader applies": the count of each class and the tables.
    static func relocationsSection(_ binary: BinaryInventory) -> String {
        var out = ""
        let r = binary.relocations
        out += "\nRelocations the loader applies (\(r.total))\n"
        var relocations = TextTable(headers: ["class", "count", ""], alignments: [.left, .right, .left])
        relocations.add(["relative", "\(r.relative)", r.relrAddresses > 0 ? "\(r.relrAddresses) from RELR" : ""])
        relocations.add(["symbolic", "\(r.symbolic)", "symbol look-up each"])
        relocations.add(["plt", "\(r.plt)", binary.dynamic.bindNow ? "bound at start-up (BIND_NOW)" : "bound lazily"])
        relocations.add(["copy", "\(r.copy)", ""])
        relocations.add(["irelative", "\(r.irelative)", r.irelative > 0 ? "ifunc resolvers run at start-up" : ""])
        relocations.add(["tls", "\(r.tls)", ""])
        relocations.add(["total", "\(r.total)", r.none > 0 ? "plus \(r.none) R_*_NONE" : ""])
        out += relocations.render()
        if !r.tables.isEmpty {
            let tables = r.tables.map {
                "\(TextSafety.display($0.name)) "
                    + ($0.format == .relr
                        ? Plural.count($0.entries, "word") : Plural.count($0.entries, "entry", "entries"))
            }
            out += "  tables: " + tables.joined(separator: ", ") + "\n"
        }
        return out
    }

    /// "Dynamic symbols": exported and imported by type, and their names when asked for.
    static func symbolsSection(_ binary: BinaryInventory) -> String {
        var out = ""
        let sym = binary.symbols
        out += "\nDynamic symbols\n"
        var symbols = TextTable(
            headers: ["", "total", "function", "object", "tls", "ifunc", "other"],
            alignments: [.left, .right, .right, .right, .right, .right, .right])
        for (label, total, types) in [
            ("exported", sym.exported, sym.exportedByType), ("imported", sym.imported, sym.importedByType),
        ] {
            symbols.add([
                label, "\(total)", "\(types.function)", "\(types.object)", "\(types.tls)", "\(types.ifunc)",
                "\(types.other)",
            ])
        }
        out += symbols.render()
        for (label, names) in [("exported", sym.exportedNames), ("imported", sym.importedNames)] {
            guard let names else { continue }
            out += "  \(label) (\(names.count)):\n"
            for name in names { out += "    " + TextSafety.display(name) + "\n" }
        }
        return out
    }

    /// "Static initializers": counts by source, the first `maxInitializers` entries and the globals they construct.
    static func initializersSection(_ binary: BinaryInventory, maxInitializers: Int, width: Int) -> String {
        var out = ""
        let i = binary.initializers
        out += "\nStatic initializers: \(i.total)\n"
        if i.total > 0 {
            let counts =
                "init_array \(i.initArray), preinit_array \(i.preinitArray), .ctors \(i.ctors), "
                + "DT_INIT \(i.dtInit ? 1 : 0); \(i.own) the program's own, \(i.toolchain) from the toolchain"
            out +=
                TextWrap.lines(counts.split(separator: " "), width: width, first: "  ", indent: "    ")
                .joined(separator: "\n") + "\n"
        }
        if !i.entries.isEmpty {
            var table = TextTable(
                headers: ["source", "#", "address", "function", "kind"],
                alignments: [.left, .right, .left, .left, .left],
                kinds: [.plain, .plain, .plain, .symbol, .plain], maxWidth: width)
            for entry in i.entries.prefix(maxInitializers) {
                table.add([
                    entry.source.rawValue, "\(entry.index)", entry.address ?? "unresolved", entry.displayName,
                    kindName(entry.kind) + (entry.priority.map { ", priority \($0)" } ?? ""),
                ])
            }
            out += table.render()
            if i.entries.count > maxInitializers {
                out += "  …and \(i.entries.count - maxInitializers) more (all of them with --format json)\n"
            }
            out += globalsLines(i.entries.prefix(maxInitializers))
        }
        return out
    }

    /// "Swift start-up suspects": lazy globals, default arguments and metadata sizes.
    static func swiftSection(_ swift: SwiftCensus, maxInitializers: Int, width: Int) -> String {
        let wrapList = { (label: String, items: [String]) in Self.wrapList(label, items, width: width) }
        var out = ""
        out += "\nSwift start-up suspects\n"
        out += "  lazy globals: \(swift.lazyGlobals.count), default arguments: \(swift.defaultArguments.count)\n"
        for (label, list) in [("lazy global", swift.lazyGlobals), ("default argument", swift.defaultArguments)] {
            for suspect in list.prefix(maxInitializers) {
                out += suspectLines(label, suspect, width: width)
            }
            if list.count > maxInitializers { out += "    …and \(list.count - maxInitializers) more\n" }
        }
        let sections = swift.metadataSections.filter { $0.value > 0 }.sorted { $0.key < $1.key }
            .map { "\($0.key) \(formatBytes($0.value))" }
        out += wrapList("metadata:", sections.isEmpty ? ["none"] : sections)
        return out
    }

    /// `label item, item, …` wrapped at `width` columns with continuation lines indented.
    static func wrapList(_ label: String, _ items: [String], width: Int) -> String {
        TextWrap.list(items, width: width, first: "  " + label + " ", indent: "    ").joined(separator: "\n") + "\n"
    }

    /// "3.8 MiB:", "text 611 KiB,", … with a note when `.rodata` is writable.
    static func sizeItems(_ s: SizeCensus) -> [String] {
        var data = "data \(formatBytes(s.data))"
        if let writable = s.writableRodata, writable > 0 {
            data += " (\(formatBytes(writable)) of it a writable .rodata)"
        }
        let relro = s.basis == nil ? "relro \(formatBytes(s.relro)) (inside data)" : "relro \(formatBytes(s.relro))"
        return [
            "\(formatBytes(s.file)):", "text \(formatBytes(s.text)),", "rodata \(formatBytes(s.rodata)),",
            data + ",", relro + ",", "bss \(formatBytes(s.bss))",
        ]
    }

    /// "linked by gold 1.16 (its version note); Swift, C++".
    static func toolchainLine(_ toolchain: BuildToolchain) -> String {
        let evidence: String
        switch toolchain.evidence {
        case .goldNote: evidence = "its version note"
        case .comment: evidence = ".comment"
        case .commentWithoutLinker: evidence = ".comment names no other linker"
        case .none: evidence = "no .comment or linker note"
        }
        let languages = toolchain.languages.map(\.displayName).joined(separator: ", ")
        return "linked by \(TextSafety.display(toolchain.linkerDescription)) (\(evidence)); \(languages)"
    }

    /// One Swift suspect: its readable name (the variable, or the parameter and its
    /// function), shortened as `TextFit` allows and wrapped.
    static func suspectLines(_ label: String, _ suspect: SwiftSuspect, width: Int) -> String {
        var name = TextSafety.display(suspect.demangled.map(SwiftName.readable) ?? suspect.symbol)
        if let location = suspect.location { name += " (" + TextSafety.display(location.shortText) + ")" }
        let first = "    \(label): "
        let lines = TextFit.lines(
            name, width: width == TextFit.unlimited ? width : max(20, width - first.count), kind: .symbol)
        return first + lines.joined(separator: "\n" + String(repeating: " ", count: first.count)) + "\n"
    }

    static func kindName(_ kind: ELFObjectKind) -> String {
        switch kind {
        case .executable: "executable"
        case .pieExecutable: "PIE executable"
        case .sharedLibrary: "shared library"
        case .relocatable: "relocatable object"
        case .core: "core file"
        case .unknown: "unknown"
        }
    }

    /// "C++ globals constructed before main", one block per translation unit whose globals
    /// DWARF lists: the unit's name and symbol, then each global with its line; "" when none.
    private static func globalsLines(_ entries: ArraySlice<InitializerInfo>) -> String {
        let units = entries.filter { !($0.globals ?? []).isEmpty }
        guard !units.isEmpty else { return "" }
        var out = "\nC++ globals constructed before main\n"
        for unit in units {
            out += "  " + TextSafety.display(unit.displayName)
            if let symbol = unit.symbol, symbol != unit.displayName { out += " (" + TextSafety.display(symbol) + ")" }
            out += "\n"
            for global in unit.globals ?? [] {
                var line = global.text
                if let included = global.includedAt { line += ", included at " + included.shortText }
                out += "    " + TextSafety.display(line) + "\n"
            }
        }
        return out
    }

    static func kindName(_ kind: InitializerInfo.Kind) -> String {
        switch kind {
        case .cxxTranslationUnit: "C++ TU initializer"
        case .constructorFunction: "constructor function"
        case .swift: "Swift runtime"
        case .toolchain: "toolchain"
        case .unknown: "unknown"
        }
    }
}

extension String {
    /// `wrapList("", …)` starts with three spaces; keep the usual two-space indent.
    fileprivate func replacingFirstSpace() -> String {
        hasPrefix("   ") ? String(dropFirst()) : self
    }
}
