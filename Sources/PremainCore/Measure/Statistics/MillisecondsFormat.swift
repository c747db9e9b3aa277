/// Formats milliseconds the same way in every message and renderer: "12.345 ms".
public enum MillisecondsFormat {
    /// `value` with three decimals and the unit, e.g. `"0.050 ms"`.
    public static func string(_ value: Double) -> String {
        "\(number(value)) ms"
    }

    /// `value` with `decimals` decimals, no unit; rounds half away from zero.
    public static func number(_ value: Double, decimals: Int = 3) -> String {
        guard value.isFinite else { return "-" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(scaled - Double(whole) * scale)
        var digits = String(fraction)
        while digits.count < decimals { digits = "0" + digits }
        let sign = value < 0 && scaled != 0 ? "-" : ""
        return decimals > 0 ? "\(sign)\(whole).\(digits)" : "\(sign)\(whole)"
    }
}
