import PremainModel

/// Where the traced time of one run goes, as a flame graph: the whole traced time on top, then
/// each object (its outermost calls added up), then each function under the object or the call
/// it ran inside, every box as wide as its inclusive time (tracer cost removed), largest first.
/// Unlike the flame chart, time order is given up so that the costly calls are wide enough to
/// read.
enum FlameGraph {
    final class Node {
        let name: String
        var detail: String
        var ms = 0.0
        var children: [String: Node] = [:]
        var order: [String] = []

        init(name: String, detail: String) {
            self.name = name
            self.detail = detail
        }

        func child(_ name: String, detail: String) -> Node {
            if let node = children[name] { return node }
            let node = Node(name: name, detail: detail)
            children[name] = node
            order.append(name)
            return node
        }

        var depth: Int { 1 + (children.values.map(\.depth).max() ?? 0) }
    }

    /// The tree of `run`'s calls: object, then the chain of enclosing calls of each thread.
    static func tree(_ run: TraceRunTimeline, _ measurement: TraceMeasurement) -> Node {
        let root = Node(name: "all traced calls", detail: "")
        // Threads in id order: the first object seen keeps its place from run to run.
        for (_, calls) in Dictionary(grouping: run.calls, by: \.thread).sorted(by: { $0.key < $1.key }) {
            var open: [(endMs: Double, node: Node)] = []
            for call in calls.sorted(by: { ($0.startMs, $0.depth) < ($1.startMs, $1.depth) }) {
                while let last = open.last, last.endMs <= call.startMs + 1e-9 { open.removeLast() }
                let name = measurement.function(of: call).map { $0.demangled ?? $0.symbol } ?? call.symbol
                let parent: Node
                if let enclosing = open.last?.node {
                    parent = enclosing
                } else {
                    parent = root.child(ObjectName.fileName(call.object), detail: call.object)
                    parent.ms += call.inclusiveMs
                    root.ms += call.inclusiveMs
                }
                let source = measurement.function(of: call)?.source.map { " (\($0.shortText))" } ?? ""
                let node = parent.child(name, detail: "\(call.object) 0x\(String(call.address, radix: 16))\(source)")
                node.ms += call.inclusiveMs
                open.append((call.endMs, node))
            }
        }
        return root
    }

    static func svg(_ measurement: TraceMeasurement, width: Double = 1400) -> String? {
        guard let run = FlameChart.medianRun(measurement), !run.calls.isEmpty else { return nil }
        let root = tree(run, measurement)
        guard root.ms > 0 else { return nil }
        let row = 20.0
        let top = 28.0
        let levels = min(root.depth, 12)
        let height = top + Double(levels) * row + 8
        var canvas = SVGCanvas(width: width, height: height)
        canvas.text(
            "Where the traced time of run \(run.run + 1) goes: \(Milliseconds.text(root.ms)) in \(run.calls.count) calls (width: inclusive time)",
            x: 8, y: 16, bold: true, limit: 160)
        let scale = (width - 16) / root.ms
        func draw(_ node: Node, x: Double, level: Int, color: String) {
            guard level < levels else { return }
            let boxWidth = node.ms * scale
            let y = top + Double(level) * row
            let share = Milliseconds.number(node.ms / root.ms * 100, decimals: 1)
            canvas.rect(
                x: x, y: y, width: max(0.5, boxWidth - 0.5), height: row - 2, fill: color,
                opacity: level == 0 ? 0.35 : 0.9,
                stroke: boxWidth > 3 ? "#ffffff" : nil,
                tooltip:
                    "\(node.name)\n\(Milliseconds.text(node.ms)) (\(share) %)\(node.detail.isEmpty ? "" : "\n" + node.detail)"
            )
            FlameChart.label(
                "\(FlameChart.shortName(node.name)) \(Milliseconds.number(node.ms, decimals: 2)) ms", from: x,
                to: x + boxWidth,
                y: y + 1, on: &canvas)
            var childX = x
            let children = node.order.compactMap { node.children[$0] }.sorted { $0.ms > $1.ms }
            let total = children.reduce(0) { $0 + $1.ms }
            // Bias removal can make children add up past the parent.
            let shrink = total > node.ms && total > 0 ? node.ms / total : 1
            for child in children {
                let childColor = level == 0 ? ChartColors.named(child.name) : color
                let saved = child.ms
                child.ms *= shrink
                draw(child, x: childX, level: level + 1, color: level == 0 ? childColor : lighter(childColor, level))
                childX += child.ms * scale
                child.ms = saved
            }
        }
        draw(root, x: 8, level: 0, color: "#9aa5b1")
        return canvas.rendered(label: "flame graph of the traced time")
    }

    /// The same hue a little lighter per level, so nested boxes stand apart.
    static func lighter(_ color: String, _ level: Int) -> String {
        guard color.count == 7, let value = UInt32(color.dropFirst(), radix: 16) else { return color }
        let mix = min(0.5, 0.12 * Double(level))
        func channel(_ shift: UInt32) -> String {
            let c = Double((value >> shift) & 0xff)
            let mixed = Int((c + (255 - c) * mix).rounded())
            let hex = String(mixed, radix: 16)
            return hex.count < 2 ? "0" + hex : hex
        }
        return "#" + channel(16) + channel(8) + channel(0)
    }
}
