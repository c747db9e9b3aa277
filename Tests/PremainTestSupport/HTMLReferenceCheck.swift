import Foundation

/// Finds what would make an HTML report reach outside its own file: any `http://` or
/// `https://`, a protocol-relative `//host`, `src=` or `href=` to anything but `data:` or an
/// in-page `#anchor`, CSS `@import` or `url(` to anything but `data:`, `<script>`, `<link>`,
/// `<iframe>`, `<object>`, `<embed>`, `<base>`. Returns one line per finding; `[]` when the page
/// stands alone.
public enum HTMLReferenceCheck {
    public static func externalReferences(in html: String) -> [String] {
        var findings: [String] = []
        let lower = html.lowercased()
        for pattern in [
            "http://", "https://", "@import", "<script", "<link", "<iframe", "<object", "<embed", "<base", "xlink:href",
        ] {
            if lower.contains(pattern) { findings.append("contains \(pattern)") }
        }
        let attributes = try! NSRegularExpression(
            pattern: #"\b(src|href|srcset|action|poster|data)\s*=\s*["']?\s*([^"'\s>]*)"#)
        let urls = try! NSRegularExpression(pattern: #"url\(\s*["']?\s*([^"')\s]*)"#)
        let protocolRelative = try! NSRegularExpression(pattern: #"["'(=]\s*//[a-z0-9]"#)
        let range = NSRange(lower.startIndex..., in: lower)
        for match in attributes.matches(in: lower, range: range) {
            guard let valueRange = Range(match.range(at: 2), in: lower) else { continue }
            let value = String(lower[valueRange])
            if !(value.hasPrefix("data:") || value.hasPrefix("#")) { findings.append("reference \(value)") }
        }
        for match in urls.matches(in: lower, range: range) {
            guard let valueRange = Range(match.range(at: 1), in: lower) else { continue }
            let value = String(lower[valueRange])
            if !value.hasPrefix("data:") && !value.hasPrefix("#") { findings.append("url(\(value))") }
        }
        if protocolRelative.firstMatch(in: lower, range: range) != nil {
            findings.append("protocol-relative //host reference")
        }
        return findings
    }
}
