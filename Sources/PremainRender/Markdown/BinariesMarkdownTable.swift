import PremainModel

/// The "Binaries, head vs base" part of the diff and pull-request comments, shaped like
/// bloaty's and size-limit's: changed objects only, executables first, then the build's
/// libraries, then toolchain and system libraries that the closures gained or lost; each group
/// sorted by the size of the change; a total row over the build's own objects; unchanged
/// objects folded into `<details>`. Pure: report in, text out.
enum BinariesMarkdownTable {
    static func e(_ raw: String, _ limit: Int = MarkdownEscape.maxLength) -> String {
        MarkdownEscape.text(raw, limit: limit)
    }

    /// The section, or `nil` when the report has no objects and no closures.
    static func render(_ report: DiffReport, top: Int) -> String? {
        let changed = ordered(report.objects.filter { $0.status != .unchanged })
        let unchanged = report.objects.filter { $0.status == .unchanged }
        let closures = report.closures.filter { $0.delta != 0 }
        guard !changed.isEmpty || !closures.isEmpty else {
            return report.objects.isEmpty
                ? nil : "### Binaries\n\nNo static change in \(Plural.count(report.objects.count, "object"))."
        }
        var out = "### Binaries, head vs base\n\n"
        if !changed.isEmpty {
            out += "| object | | file size | relocations | exports | static initializers | dependencies |\n"
            out += "|---|---|---:|---:|---:|---:|---|\n"
            for delta in changed.prefix(top) { out += row(delta) }
            if changed.count > top { out += "| …and \(changed.count - top) more | | | | | | |\n" }
            out += totalRow(report.objects)
        }
        for closure in closures {
            out +=
                "\n**\(e(closure.name))** maps \(DiffMarkdownRenderer.signedCount(closure)) \(Plural.noun(closure.head ?? closure.base ?? 0, "object")) before main."
        }
        var lists: [String] = []
        for delta in changed {
            for name in delta.initializersAdded.prefix(top) {
                lists.append("- 🆕 static initializer \(e(name)) in \(e(delta.name))")
            }
            for name in delta.initializersRemoved.prefix(top) {
                lists.append("- ✖️ static initializer \(e(name)) removed from \(e(delta.name))")
            }
            for name in delta.swiftSuspectsAdded.prefix(top) {
                lists.append("- 🆕 Swift start-up suspect \(e(name)) in \(e(delta.name))")
            }
            for name in delta.swiftSuspectsRemoved.prefix(top) {
                lists.append("- ✖️ Swift start-up suspect \(e(name)) removed from \(e(delta.name))")
            }
        }
        if !lists.isEmpty {
            out += "\n" + lists.prefix(top).joined(separator: "\n")
            if lists.count > top { out += "\n- …and \(lists.count - top) more" }
        }
        if !unchanged.isEmpty {
            let names = ordered(unchanged).map { e($0.name, 120) }
            let shown =
                names.prefix(top * 5).joined(separator: ", ")
                + (names.count > top * 5 ? ", …and \(names.count - top * 5) more" : "")
            out +=
                "\n\n<details><summary>\(unchanged.count) unchanged object\(unchanged.count == 1 ? "" : "s")</summary>\n\n\(shown)\n\n</details>"
        }
        return out.trimmingTrailingNewline
    }

    /// Executables, then the build's libraries and other files, then toolchain and system
    /// libraries; inside each group the largest change of file size first, then of
    /// relocations, then by name.
    static func ordered(_ objects: [ObjectDelta]) -> [ObjectDelta] {
        func group(_ delta: ObjectDelta) -> Int {
            switch delta.place ?? .project {
            case .toolchain: return 3
            case .system: return 4
            case .project:
                switch delta.kind {
                case .executable?, .pieExecutable?: return 0
                case .sharedLibrary?: return 1
                default: return 2
                }
            }
        }
        func relocations(_ delta: ObjectDelta) -> Int {
            abs(delta.relocations.first { $0.name == "total" }?.delta ?? 0)
        }
        return objects.sorted { a, b in
            if group(a) != group(b) { return group(a) < group(b) }
            if abs(a.fileSize.delta) != abs(b.fileSize.delta) { return abs(a.fileSize.delta) > abs(b.fileSize.delta) }
            if relocations(a) != relocations(b) { return relocations(a) > relocations(b) }
            return a.name < b.name
        }
    }

    static func row(_ delta: ObjectDelta) -> String {
        let status: String
        switch delta.status {
        case .added: status = "🆕 new"
        case .removed: status = "✖️ removed"
        case .changed, .unchanged: status = "changed"
        }
        var name = e(delta.name)
        switch delta.place ?? .project {
        case .project:
            if delta.kind == .executable || delta.kind == .pieExecutable { name = "**\(name)**" }
        case .toolchain, .system:
            let place = delta.place == .system ? "system" : "toolchain"
            let mappedBy = (delta.mappedBy ?? []).prefix(3).map { e($0, 80) }.joined(separator: ", ")
            name += " <sub>\(place)\(mappedBy.isEmpty ? "" : ", mapped by " + mappedBy)</sub>"
        }
        var needed: [String] = delta.neededAdded.map { "+" + e($0) } + delta.neededRemoved.map { "−" + e($0) }
        if needed.isEmpty { needed = ["–"] }
        let total = delta.relocations.first { $0.name == "total" } ?? CountDelta(name: "total", base: nil, head: nil)
        return "| \(name) | \(status) | \(bytes(delta.fileSize)) | \(DiffMarkdownRenderer.signedCount(total)) | "
            + "\(DiffMarkdownRenderer.signedCount(delta.exports)) | \(DiffMarkdownRenderer.signedCount(delta.initializers)) | "
            + "\(needed.joined(separator: "<br>")) |\n"
    }

    /// The sums over the build's own objects, changed or not.
    static func totalRow(_ objects: [ObjectDelta]) -> String {
        let own = objects.filter { ($0.place ?? .project) == .project }
        func sum(_ name: String, _ count: (ObjectDelta) -> CountDelta) -> CountDelta {
            let counts = own.map(count)
            return CountDelta(
                name: name, base: counts.compactMap(\.base).reduce(0, +), head: counts.compactMap(\.head).reduce(0, +))
        }
        let size = sum("fileSize", \.fileSize)
        let relocations = sum("total") {
            $0.relocations.first { $0.name == "total" } ?? CountDelta(name: "total", base: nil, head: nil)
        }
        return
            "| **total** (\(own.count) object\(own.count == 1 ? "" : "s")) | | \(bytes(size)) | \(DiffMarkdownRenderer.signedCount(relocations)) | "
            + "\(DiffMarkdownRenderer.signedCount(sum("exports", \.exports))) | \(DiffMarkdownRenderer.signedCount(sum("initializers", \.initializers))) | |\n"
    }

    /// "16.2 KiB (+1000 B, +6.7 %) ▲", "15.1 KiB (new)", "– (was 15.1 KiB)", "16.2 KiB".
    static func bytes(_ delta: CountDelta) -> String {
        func size(_ value: Int) -> String { sizeText(value) }
        switch (delta.base, delta.head) {
        case (nil, nil): return "–"
        case (nil, let head?): return "\(size(head)) (new)"
        case (let base?, nil): return "– (was \(size(base)))"
        case (let base?, let head?):
            let change = head - base
            guard change != 0 else { return size(head) }
            let sign = change > 0 ? "+" : "−"
            let percent =
                base != 0
                ? ", \(change > 0 ? "+" : "")\(String(format1: Double(change) / Double(base) * 100))\u{00A0}%" : ""
            return "\(size(head)) (\(sign)\(size(abs(change)))\(percent)) \(change > 0 ? "▲" : "▼")"
        }
    }
}

/// "912 B", "15.6 KiB", "3.2 MiB" with a no-break space: one decimal, so that a change of a
/// few hundred bytes still shows in the figure.
func sizeText(_ value: Int) -> String {
    (value < 0 ? "-" : "") + formatBytes(UInt64(value.magnitude), decimals: 1, separator: "\u{00A0}")
}
