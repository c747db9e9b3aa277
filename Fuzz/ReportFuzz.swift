// Fuzz target: a JSON report (audit, measure or trace) decoded, judged by every rule, diffed
// against itself and rendered, as `premain check` and `premain diff` do with a report file.
import PremainJudge
import PremainModel
import PremainRender

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReport(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    guard let input = try? RuleInputLoader.report(text) else { return 0 }
    let config = PremainConfig()
    let engine = RuleEngine(config: config)
    let check = CheckReport(inputs: ["fuzz.json"], findings: engine.findings(input), failOn: .error, errors: [])
    _ = FindingsTextRenderer.render(check, width: 100)
    _ = CheckMarkdownRenderer.render(check)
    _ = try? SARIFRenderer.render(
        check, catalog: engine.catalog,
        scope: SourceScope(root: "/src", artifacts: ["/src/fuzz.json"], workingDirectory: "/src"))
    let diff = DiffBuilder(config: config, failOn: .error).diff(
        base: input, head: input, baseLabel: "base", headLabel: "head")
    _ = DiffTextRenderer.render(diff, width: 100)
    _ = DiffMarkdownRenderer.render(diff, top: 10)
    _ = try? JSONRenderer.render(diff)
    return 0
}
