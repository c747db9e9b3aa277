import PremainModel

/// Renders a binary's load closure as text: a libtree-style dependency tree, missing and unused
/// libraries, the closure totals and the heaviest objects. Pure.
public enum ClosureTextRenderer {
    public struct Options: Sendable, Equatable {
        /// Deepest level shown in the tree (1 = direct dependencies).
        public var depth: Int
        /// Show system libraries (under /lib, /usr/lib) in the tree instead of folding them.
        public var all: Bool
        /// Columns a line may use (`TextFit.unlimited`: any).
        public var width: Int

        public init(depth: Int = 32, all: Bool = false, width: Int = 100) {
            self.depth = depth
            self.all = all
            self.width = width
        }
    }

    /// `""` when the binary has no closure.
    public static func render(_ binary: BinaryInventory, options: Options = .init()) -> String {
        guard let closure = binary.closure else { return "" }
        let width = options.width
        let wrap = { (prefix: String, items: [String]) in Self.wrap(prefix, items, width: width) }
        var out = "\nLoad closure (\(Plural.count(closure.objects.count, "object"))"
        out += closure.missing.isEmpty ? ")\n" : ", \(closure.missing.count) missing)\n"
        out += tree(binary.path, closure, options)
        if !closure.missing.isEmpty {
            out += "\nMissing libraries\n"
            for missing in closure.missing {
                out += "  \(TextSafety.display(missing.name)), needed by \(TextSafety.display(missing.neededBy))\n"
                out += wrap("    searched: ", missing.searched.map(TextSafety.display))
                if !missing.wrongClass.isEmpty {
                    out += wrap("    wrong ELF class or machine: ", missing.wrongClass.map(TextSafety.display))
                }
            }
        }
        if let unused = binary.unusedNeeded, !unused.isEmpty {
            out += "\nUnused direct dependencies (no imported symbol binds to them)\n"
            out += unused.map { "  " + TextSafety.display($0) + "\n" }.joined()
        }
        if let totals = closure.totals, let program = closure.program {
            out += "\nClosure totals (program + \(Plural.count(totals.objects, "object")))\n"
            var table = TextTable(
                headers: ["", "program", "closure"], alignments: [.left, .right, .right], maxWidth: width)
            let (p, t) = (program.relocations, totals.relocations)
            table.add(["relocations", "\(p.total)", "\(t.total)"])
            for (label, mine, all) in [
                ("  relative", p.relative, t.relative), ("  symbolic", p.symbolic, t.symbolic),
                ("  plt", p.plt, t.plt), ("  copy", p.copy, t.copy),
                ("  irelative", p.irelative, t.irelative), ("  tls", p.tls, t.tls),
            ] {
                table.add([label, "\(mine)", "\(all)"])
            }
            table.add(["symbol look-ups", "\(program.lookups)", "\(totals.lookups)"])
            table.add(["initializers", "\(program.initializers)", "\(totals.initializers)"])
            table.add(["exported symbols", "\(program.exported)", "\(totals.exported)"])
            out += table.render()
        }
        if !closure.top.isEmpty {
            out += "\nHeaviest objects\n"
            var table = TextTable(
                headers: ["object", "relocations", "share", "look-ups", "inits", "exported"],
                alignments: [.left, .right, .right, .right, .right, .right], kinds: [.path],
                maxWidth: width)
            for share in closure.top {
                table.add([
                    share.soname ?? share.path, "\(share.relocations)", percent(share.relocationShare),
                    "\(share.lookups)", "\(share.initializers)", "\(share.exported)",
                ])
            }
            out += table.render()
        }
        return out
    }

    /// `prefix` and `items` separated by commas, wrapped at `width` with a hanging indent; an
    /// item wider than a line stands whole on its own.
    static func wrap(_ prefix: String, _ items: [String], width: Int) -> String {
        let indent = String(repeating: " ", count: min(prefix.count, 8))
        let pieces = items.enumerated().map { index, item in item + (index == items.count - 1 ? "" : ",") }
        let lines = TextWrap.lines(pieces, width: width, first: prefix, indent: indent)
        return lines.dropLast().map { $0.trailingSpacesRemoved + "\n" }.joined() + (lines.last ?? "") + "\n"
    }

    static func percent(_ fraction: Double) -> String {
        let tenths = Int((fraction * 1000).rounded())
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// The tree: each object under the object that needed it first; missing names under
    /// theirs. System libraries are folded into one line unless `options.all`.
    static func tree(_ root: String, _ closure: DependencyClosure, _ options: Options) -> String {
        var children: [String: [Node]] = [:]
        for object in closure.objects {
            children[object.neededBy, default: []].append(.object(object))
        }
        for missing in closure.missing {
            children[missing.neededBy, default: []].append(.missing(missing))
        }
        var lines = [TextSafety.display(root)]
        var folded: [String] = []
        func visit(_ parent: String, prefix: String, level: Int) {
            var shown = children[parent] ?? []
            if !options.all {
                for case .object(let object) in shown where object.system && object.foundVia != .interpreter {
                    folded.append(object.soname ?? object.requestedName)
                }
                shown.removeAll { node in
                    if case .object(let object) = node { return object.system && object.foundVia != .interpreter }
                    return false
                }
            }
            for (index, node) in shown.enumerated() {
                let last = index == shown.count - 1
                let branch = prefix + (last ? "└── " : "├── ")
                switch node {
                case .object(let object):
                    let shown = TextSafety.display(object.soname ?? object.requestedName)
                    var line = branch + shown + " [\(tag(object.foundVia))]"
                    // The path loses leading directories to fit, never its file name.
                    let room = options.width == TextFit.unlimited ? options.width : options.width - 2 - line.count - 1
                    let path = TextFit.shorten(TextSafety.display(object.path), width: room, kind: .path)
                    if path.contains("/") || path != shown { line += " " + path }
                    lines.append(line)
                    if level < options.depth {
                        visit(object.path, prefix: prefix + (last ? "    " : "│   "), level: level + 1)
                    } else if !(children[object.path] ?? []).isEmpty {
                        lines.append(prefix + (last ? "    " : "│   ") + "└── …")
                    }
                case .missing(let missing):
                    lines.append(branch + TextSafety.display(missing.name) + " not found")
                }
            }
        }
        if options.depth > 0 { visit(root, prefix: "", level: 1) }
        var out = lines.map { "  " + $0 }.joined(separator: "\n") + "\n"
        if !folded.isEmpty {
            var unique: [String] = []
            for name in folded where !unique.contains(name) { unique.append(name) }
            out += wrap(
                "  \(unique.count) system libraries folded (--all shows them): ",
                unique.map(TextSafety.display), width: options.width)
        }
        return out
    }

    enum Node {
        case object(ClosureObject)
        case missing(MissingLibrary)
    }

    /// libtree's tags.
    static func tag(_ via: FoundVia) -> String {
        switch via {
        case .rpath: "rpath"
        case .runpath: "runpath"
        case .ldLibraryPath: "LD_LIBRARY_PATH"
        case .ldSoCache: "ld.so.conf"
        case .defaultPath: "default path"
        case .directPath: "direct"
        case .interpreter: "interpreter"
        }
    }

    /// The summary of a folder audit: totals and the largest offenders.
    public static func render(_ summary: OffenderSummary, width: Int = 100) -> String {
        var out =
            "\nSummary of \(Plural.count(summary.files, "file")): \(Plural.count(summary.relocations, "relocation")), "
            + "\(Plural.count(summary.initializers, "initializer")), \(summary.exported) exported symbols\n"
            + "  \(summary.filesWithMissing) with missing libraries, \(summary.filesWithUnused) with unused ones\n"
        for (title, list) in [
            ("Most relocations", summary.mostRelocations),
            ("Most static initializers (own)", summary.mostInitializers),
            ("Most exported symbols", summary.mostExported),
            ("Most dependencies (closure objects)", summary.mostDependencies),
            ("Most missing libraries", summary.mostMissing),
            ("Most unused dependencies", summary.mostUnused),
        ] where !list.isEmpty {
            out += "\n\(title)\n"
            var table = TextTable(
                headers: ["", ""], alignments: [.right, .left], kinds: [.plain, .path], maxWidth: width)
            for offender in list { table.add(["\(offender.value)", offender.path]) }
            out += table.render()
        }
        return out
    }
}
