import Foundation
import PremainJudge
import PremainModel
import PremainSystem

/// `audit --estimate REPORT_OR_MODEL… [--save-model FILE]`: the loader's work of each audited
/// program on this machine, from a cost model fitted on measured objects (`LoaderCostModel`).
enum LoaderEstimateOptions {
    static let estimate = Option<[String]>.repeating(
        "--estimate", value: "file", kind: .path(.any),
        help:
            "Estimate each program's loading and relocation on this machine from a cost model: a model file (\(saveModel)), or measure reports (JSON files, or a folder of them) to fit one on; repeatable"
    )
    static let saveModel = Option<String?>(
        "--save-model", value: "file", kind: .path(.file),
        help: "Write the cost model fitted on the measure reports given to the estimate to this file (JSON)"
            + OutputOptions.dashHelp)

    /// The files `--estimate` reads: a folder stands for the JSON files directly inside it.
    static func files(_ arguments: ParsedArguments) -> [String] {
        arguments[estimate].flatMap { path -> [String] in
            guard LocalFiles.kind(path) == .folder, case .success(let names) = LocalFiles.entries(of: path) else {
                return [path]
            }
            return names.filter { $0.hasSuffix(".json") }.sorted().map { path + "/" + $0 }
        }
    }

    /// The model the options ask for; `nil` without `--estimate`. `save` writes it.
    static func model(_ arguments: ParsedArguments) throws(UsageError) -> LoaderCostModel? {
        let paths = files(arguments)
        guard !paths.isEmpty else {
            if arguments.has(saveModel) {
                throw UsageError(message: "\(saveModel) needs \(estimate) with measure reports")
            }
            return nil
        }
        var measurements: [LaunchMeasurement] = []
        var given: LoaderCostModel?
        for path in paths {
            guard let data = RuleInputLoader.readWhole(path) else {
                throw UsageError(message: "\(path): cannot read the file")
            }
            if (try? JSONDecoder().decode(ReportHeader.self, from: data))?.kind == .loaderCostModel,
                let model = try? JSONDecoder().decode(LoaderCostModel.self, from: data)
            {
                given = model
                continue
            }
            guard let report = try? JSONDecoder().decode(MeasureReport.self, from: data) else {
                throw UsageError(message: "\(path): neither a premain measure report nor a loader cost model")
            }
            measurements += report.measurements
        }
        if let given, measurements.isEmpty { return given }
        guard let fitted = LoaderCostModel.fit(measurements) else {
            throw UsageError(
                message:
                    "\(estimate): too few measured objects with loader times to fit a model (measure more programs with premain measure \(OutputOptions.formatName) json)"
            )
        }
        return fitted
    }

    /// Writes the fitted `model` to `--save-model`'s file through the one writer (the previous
    /// file stays when it cannot be written); `false` after one `Error:` line when it failed,
    /// `true` when written or not asked for.
    static func save(_ model: LoaderCostModel?, _ arguments: ParsedArguments) -> Bool {
        guard let path = arguments[saveModel], let model else { return true }
        return Console.emit(to: path) { () throws -> String in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try encoder.encode(model), as: UTF8.self) + "\n"
        }
    }
}
