import PremainModel

/// An inline SVG drawing built element by element; every text and tooltip is escaped here, so
/// callers pass raw names. No `xmlns` (HTML parses inline `<svg>` into the SVG namespace) and
/// no reference to anything outside the element.
struct SVGCanvas {
    var width: Double
    var height: Double
    private(set) var elements: [String] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    static func number(_ value: Double) -> String {
        Milliseconds.number(value.isFinite ? value : 0, decimals: 1)
    }

    /// A rectangle; `tooltip` becomes its `<title>` (shown on hover).
    mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, opacity: Double = 1,
        stroke: String? = nil, tooltip: String? = nil
    ) {
        let n = Self.number
        var attributes =
            "x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(max(0, width)))\" height=\"\(n(max(0, height)))\" fill=\"\(fill)\" rx=\"1.5\""
        if opacity < 1 { attributes += " fill-opacity=\"\(Milliseconds.number(opacity, decimals: 2))\"" }
        if let stroke { attributes += " stroke=\"\(stroke)\" stroke-width=\"0.6\"" }
        if let tooltip {
            elements.append("<rect \(attributes)><title>\(HTMLEscape.tooltip(tooltip))</title></rect>")
        } else {
            elements.append("<rect \(attributes)/>")
        }
    }

    mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1,
        dashed: Bool = false, cssClass: String? = nil
    ) {
        let n = Self.number
        var attributes =
            "x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\""
        if dashed { attributes += " stroke-dasharray=\"4 3\"" }
        if let cssClass { attributes += " class=\"\(cssClass)\"" }
        elements.append("<line \(attributes)/>")
    }

    mutating func circle(
        x: Double, y: Double, radius: Double, fill: String, tooltip: String? = nil, opacity: Double = 1
    ) {
        let n = Self.number
        let body =
            "cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"\(n(radius))\" fill=\"\(fill)\" fill-opacity=\"\(Milliseconds.number(opacity, decimals: 2))\""
        if let tooltip {
            elements.append("<circle \(body)><title>\(HTMLEscape.tooltip(tooltip))</title></circle>")
        } else {
            elements.append("<circle \(body)/>")
        }
    }

    mutating func polyline(_ points: [(Double, Double)], stroke: String, width: Double = 1.5) {
        let list = points.map { "\(Self.number($0.0)),\(Self.number($0.1))" }.joined(separator: " ")
        elements.append(
            "<polyline points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"\(Self.number(width))\"/>")
    }

    /// Text at (x, y) (the baseline); `anchor` start, middle or end; cut to `limit` characters.
    mutating func text(
        _ raw: String, x: Double, y: Double, anchor: String = "start", size: Double = 12,
        bold: Bool = false, muted: Bool = false, fill: String? = nil, limit: Int = 200
    ) {
        var attributes = "x=\"\(Self.number(x))\" y=\"\(Self.number(y))\""
        if anchor != "start" { attributes += " text-anchor=\"\(anchor)\"" }
        if size != 12 { attributes += " font-size=\"\(Self.number(size))\"" }
        if bold { attributes += " font-weight=\"600\"" }
        if muted { attributes += " class=\"muted\"" }
        if let fill { attributes += " style=\"fill:\(fill)\"" }
        elements.append("<text \(attributes)>\(HTMLEscape.label(raw, limit: limit))</text>")
    }

    /// The `<svg>` element, with `label` for screen readers.
    func rendered(label: String) -> String {
        "<svg viewBox=\"0 0 \(Self.number(width)) \(Self.number(height))\" width=\"\(Self.number(width))\" height=\"\(Self.number(height))\" role=\"img\" aria-label=\"\(HTMLEscape.text(label))\">\n"
            + elements.joined(separator: "\n") + "\n</svg>"
    }
}

/// A linear time axis in ms mapped onto pixels, with round tick steps (1, 2, 5 × 10ⁿ).
struct TimeAxis {
    var startMs: Double
    var endMs: Double
    var left: Double
    var width: Double

    init(startMs: Double = 0, endMs: Double, left: Double, width: Double) {
        self.startMs = startMs
        self.endMs = endMs > startMs ? endMs : startMs + 1
        self.left = left
        self.width = width
    }

    func x(_ ms: Double) -> Double {
        left + (min(max(ms, startMs), endMs) - startMs) / (endMs - startMs) * width
    }

    /// Pixels for a duration of `ms`.
    func length(_ ms: Double) -> Double { max(0, ms) / (endMs - startMs) * width }

    /// Tick times: about `count` round steps across the axis.
    func ticks(count: Int = 8) -> [Double] {
        let raw = (endMs - startMs) / Double(max(1, count))
        var step = 1.0
        while step > raw { step /= 10 }
        while step * 10 <= raw { step *= 10 }
        for factor in [1.0, 2, 5, 10] where step * factor >= raw {
            step *= factor
            break
        }
        var ticks: [Double] = []
        var tick = (startMs / step).rounded(.up) * step
        while tick <= endMs + step * 1e-9 && ticks.count < 100 {
            ticks.append(tick)
            tick += step
        }
        return ticks
    }

    /// Grid lines and labels from `top` to `bottom`, labels above `top`.
    func draw(on canvas: inout SVGCanvas, top: Double, bottom: Double) {
        let ticks = ticks()
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        let decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3
        for tick in ticks {
            canvas.line(x1: x(tick), y1: top, x2: x(tick), y2: bottom, stroke: "#e3e7ec", cssClass: "axis")
            canvas.text(
                Milliseconds.number(tick, decimals: decimals) + " ms", x: x(tick), y: top - 4, anchor: "middle",
                size: 11, muted: true)
        }
    }
}

/// Colours of the charts: phases, kinds of traced function, and a stable colour per name.
enum ChartColors {
    static let phases: [String: String] = [
        "exec and loader start": "#9aa5b1", "map and relocate": "#5c8dd6", "initializers": "#e08a2e",
        "main": "#4caf7a", "main to first output": "#4caf7a",
    ]
    /// An object's initializers: the legend's "initializers" orange, whatever the object (red and
    /// green are the milestones' and main's).
    static var initializers: String { phases["initializers"] ?? "#e08a2e" }
    static let base = "#7e9cc9"
    static let head = "#d9822b"
    static let milestone = "#b0261c"
    /// An object's loading and its relocation in the waterfall: shades of the loader phase's blue.
    static let loading = "#a9c4ec"
    static let relocation = "#2f5fa8"

    static func kind(_ kind: TracedFunctionKind) -> String {
        switch kind {
        case .staticInitializer: return "#9aa5b1"
        case .cxxTranslationUnitInitializer: return "#5c8dd6"
        case .cxxGlobal: return "#3f6fb8"
        case .constructorFunction: return "#7b6cc4"
        case .swiftLazyGlobal: return "#e08a2e"
        case .swiftDefaultArgument: return "#d4b02a"
        case .named: return "#4caf7a"
        }
    }

    static let palette = [
        "#5c8dd6", "#e08a2e", "#4caf7a", "#b25fb0", "#d4b02a", "#3ba7a0", "#d0605e", "#7b6cc4", "#8d9c3c", "#c77c9e",
    ]

    /// The same colour for the same name in every chart.
    static func named(_ name: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return palette[Int(hash % UInt32(palette.count))]
    }
}
