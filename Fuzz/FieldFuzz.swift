// Fuzz target: bytes as a spool file of field records, as `premain field report` reads them
// (FieldReportBuilder: every line parsed, escapes decoded, exec chains and marks joined,
// percentiles, intervals and histograms made), then rendered as text, Markdown, HTML and JSON
// and compared with itself. The records' format is docs/field-record.md.
import PremainField
import PremainModel
import PremainRender

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzField(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let report = FieldReportBuilder.report(recordBytes: bytes, drops: size % 3)
    _ = FieldTextRenderer.render(report)
    _ = FieldMarkdownRenderer.render(report)
    _ = FieldHTMLRenderer.render(report)
    _ = try? JSONRenderer.render(report)
    let settings = FieldCompareSettings(thresholdMs: 0.5, thresholdPercent: 5, gated: [.p50, .p90])
    if let comparison = try? FieldComparison.compare(
        old: report, new: report, oldSource: "old", newSource: "new", oldVersion: nil, newVersion: nil,
        settings: settings)
    {
        _ = FieldCompareTextRenderer.render(comparison)
        _ = FieldCompareMarkdownRenderer.render(comparison)
    }
    return 0
}
