// Fuzz target: premain.json through ConfigParser, then the rules it configures.
import PremainJudge

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
    guard let config = try? ConfigParser.parse(text, file: "premain.json") else { return 0 }
    _ = RuleEngine(config: config).catalog
    return 0
}
