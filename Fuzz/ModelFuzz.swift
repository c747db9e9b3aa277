// Fuzz target: a loader cost model file (`audit --estimate MODEL`) or a measure report to fit
// one on (`audit --estimate REPORT`), as JSON bytes. A model that decodes has every number in
// range (CheckedDecoding), so its estimate and sentence are finite; a fitted one likewise.
import FoundationEssentials
import PremainModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeRawBufferPointer(start: data, count: size))
    let inputs = [
        LoaderCostModel.Input(mapped: true, relative: 1_000_000, symbolic: 1_000_000),
        LoaderCostModel.Input(mapped: false, relative: 0, symbolic: 0),
    ]
    var models: [LoaderCostModel] = []
    if let model = try? JSONDecoder().decode(LoaderCostModel.self, from: bytes) { models.append(model) }
    if let report = try? JSONDecoder().decode(MeasureReport.self, from: bytes),
        let fitted = LoaderCostModel.fit(report.measurements)
    {
        models.append(fitted)
    }
    for model in models {
        for input in inputs {
            let ms = model.estimateMs(input)
            precondition(ms.isFinite && ms >= 0, "an estimate of \(ms) ms from a model that was read or fitted")
        }
        for coefficient in [model.nsPerObject, model.nsPerRelativeRelocation, model.nsPerSymbolRelocation] {
            precondition(coefficient.isFinite && coefficient >= 0, "a coefficient of \(coefficient) ns")
        }
        precondition((model.heldOutMedianErrorPercent ?? 0) >= 0 && (model.heldOutMaxErrorPercent ?? 0) >= 0)
        _ = model.sentence(LoaderEstimate(ms: model.estimateMs(inputs[0]), objects: 2, uncounted: 1))
    }
    return 0
}
