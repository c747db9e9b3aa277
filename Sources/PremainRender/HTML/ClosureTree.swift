import PremainModel

/// The audit's load closure as a tree (who needed whom, breadth-first as ld.so loads it) with
/// each object's start-up cost: relocations, symbol look-ups, initializers, exported symbols,
/// and a bar for its share of the closure's relocations. Native `<details>` folds the tree; no
/// script.
enum ClosureTree {
    struct Cost {
        var relocations: Int
        var lookups: Int
        var initializers: Int
        var exported: Int
    }

    static func html(program: String, programCost: ObjectCost?, closure: DependencyClosure) -> String {
        let shares = Dictionary(closure.top.map { ($0.path, $0) }) { first, _ in first }
        func cost(_ object: ClosureObject) -> Cost? {
            if let cost = object.cost {
                return Cost(
                    relocations: cost.relocations.total, lookups: cost.lookups, initializers: cost.initializers,
                    exported: cost.exported)
            }
            return shares[object.path].map {
                Cost(
                    relocations: $0.relocations, lookups: $0.lookups, initializers: $0.initializers,
                    exported: $0.exported)
            }
        }
        let total = max(
            1, closure.totals?.relocations.total ?? closure.objects.compactMap { cost($0)?.relocations }.reduce(0, +))
        let children = Dictionary(grouping: closure.objects, by: \.neededBy)
        var seen = Set<String>()
        func node(_ name: String, path: String, cost nodeCost: Cost?, detail: String) -> String {
            var line = "<b>\(HTMLEscape.text(name))</b> <span class=\"cost\">"
            if let cost = nodeCost {
                let width = Int((Double(cost.relocations) / Double(total) * 160).rounded())
                line = "<span class=\"bar\" style=\"width:\(max(1, width))px\"></span>" + line
                line +=
                    "\(CountText.grouped(UInt64(max(0, cost.relocations)))) relocations, \(CountText.grouped(UInt64(max(0, cost.lookups)))) look-ups, \(Plural.count(cost.initializers, "initializer")), \(CountText.grouped(UInt64(max(0, cost.exported)))) exported"
            }
            line += "</span> <span class=\"note\">\(HTMLEscape.text(detail))</span>"
            let kids = (children[path] ?? []).filter { seen.insert($0.path).inserted }
            guard !kids.isEmpty else { return "<li>\(line)</li>\n" }
            let inner = kids.map { kid in
                node(
                    ObjectName.of(kid), path: kid.path, cost: cost(kid),
                    detail: "\(kid.path) (\(kid.foundVia.rawValue)\(kid.system ? ", system" : ""))")
            }.joined()
            return "<li><details open><summary>\(line)</summary><ul>\n\(inner)</ul></details></li>\n"
        }
        let root = node(
            ObjectName.fileName(program), path: program,
            cost: programCost.map {
                Cost(
                    relocations: $0.relocations.total, lookups: $0.lookups, initializers: $0.initializers,
                    exported: $0.exported)
            },
            detail: program)
        var out = "<div class=\"tree\"><ul>\n\(root)</ul></div>\n"
        let orphans = closure.objects.filter { !seen.contains($0.path) }
        if !orphans.isEmpty {
            out +=
                "<p class=\"note\">Also loaded: "
                + orphans.map { HTMLEscape.text(ObjectName.of($0)) }.joined(separator: ", ") + "</p>\n"
        }
        if !closure.missing.isEmpty {
            out +=
                "<p><b>Missing:</b> "
                + closure.missing.map { "\(HTMLEscape.text($0.name)) (needed by \(HTMLEscape.text($0.neededBy)))" }
                .joined(separator: ", ") + "</p>\n"
        }
        if let totals = closure.totals {
            out +=
                "<p class=\"note\">Closure: \(Plural.count(totals.objects, "object")), \(CountText.grouped(UInt64(max(0, totals.relocations.total)))) relocations, \(CountText.grouped(UInt64(max(0, totals.lookups)))) symbol look-ups, \(Plural.count(totals.initializers, "initializer")).</p>\n"
        }
        return out
    }
}
