/// Formats milliseconds the same way in every message and renderer: "12.345 ms".
public enum Milliseconds {
    /// `value` with three decimals and the unit, e.g. `"0.050 ms"`; `"- ms"` for NaN and infinities.
    public static func text(_ value: Double) -> String { number(value) + " ms" }

    /// A difference with its sign and the unit: "+1.021 ms", "−0.040 ms", "±0.000 ms".
    public static func signed(_ value: Double) -> String {
        let digits = number(abs(value))
        guard value.isFinite else { return digits + " ms" }
        let sign = Double(digits) == 0 ? "±" : value > 0 ? "+" : "−"
        return sign + digits + " ms"
    }

    /// `value` with `decimals` decimals, no unit; rounds half away from zero; "-" for NaN and
    /// infinities; Swift's shortest form ("1e+300") from 1e15 on.
    public static func number(_ value: Double, decimals: Int = 3) -> String {
        guard value.isFinite else { return "-" }
        // Beyond 1e15 the digits after the point are not kept anyway (and would not fit an Int).
        guard abs(value) < 1e15 else { return String(value) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = (scaled / scale).rounded(.down)
        let fraction = Int(scaled - whole * scale)
        var digits = String(fraction)
        while digits.count < decimals { digits = "0" + digits }
        let sign = value < 0 && scaled != 0 ? "-" : ""
        let wholeText = whole < 1e15 ? String(Int64(whole)) : String(whole)
        return decimals > 0 ? "\(sign)\(wholeText).\(digits)" : "\(sign)\(wholeText)"
    }
}

/// Formats counts the same way in every message and renderer: "3,000,023", "+141", "−0.5".
public enum CountText {
    /// `value` with a comma between groups of three digits: "3,121,066".
    public static func grouped(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return result
    }

    /// A difference with its sign: whole numbers grouped ("+3,000,023"), others with one
    /// decimal ("−0.5"), zero as "±0".
    public static func signed(_ value: Double) -> String {
        guard value != 0 else { return "±0" }
        let magnitude = abs(value)
        let digits =
            magnitude == magnitude.rounded() && magnitude < 1e15
            ? grouped(UInt64(magnitude))
            : String(format1: magnitude)
        return (value > 0 ? "+" : "−") + digits
    }
}

extension String {
    /// One decimal, no unit: "12.3" (percentages in messages and renderers).
    public init(format1 value: Double) {
        self = Milliseconds.number(value, decimals: 1)
    }
}
