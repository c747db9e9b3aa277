import Foundation
import PremainJudge
import PremainLaunch
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
        help:
            "Write the cost model (fitted on the measure reports given to the estimate, or the model file given) to this file (JSON)"
            + OutputOptions.dashHelp)

    /// One file `--estimate` reads, and whether a folder given to it held the file.
    struct Input {
        var path: String
        var fromFolder: Bool
    }

    /// The files `--estimate` reads: a folder stands for the JSON files directly inside it.
    static func inputs(_ arguments: ParsedArguments) -> [Input] {
        arguments[estimate].flatMap { path -> [Input] in
            guard LocalFiles.kind(path) == .folder, case .success(let names) = LocalFiles.entries(of: path) else {
                return [Input(path: path, fromFolder: false)]
            }
            return names.filter { $0.hasSuffix(".json") }.sorted().map {
                Input(path: path + "/" + $0, fromFolder: true)
            }
        }
    }

    static func files(_ arguments: ParsedArguments) -> [String] { inputs(arguments).map(\.path) }

    /// What `--estimate` gives: the model, or the problems of its files (each an input error,
    /// exit 3, naming the file), and the files of its folders that were not reports for it.
    struct Loaded {
        var model: LoaderCostModel?
        var errors: [String] = []
        var skipped: [String] = []
        /// The model was fitted on another CPU than this machine's.
        var foreign = false
    }

    /// The model the options ask for (`nil` without `--estimate`). A file named on the command
    /// line must be a measure report or a model; a file found in a folder that is neither is
    /// skipped with a note, as `check` skips it; a report or model that does not read (a
    /// truncated file, a number out of range, an unknown `schemaVersion`) is an error either way.
    /// Measure reports of more than one CPU model are refused: a model describes one machine.
    static func model(_ arguments: ParsedArguments) throws(UsageError) -> Loaded {
        let given = inputs(arguments)
        guard !given.isEmpty else {
            if arguments.has(saveModel) {
                throw UsageError(message: "\(saveModel) needs \(estimate) with measure reports or a model file")
            }
            return Loaded()
        }
        var loaded = Loaded()
        var measurements: [LaunchMeasurement] = []
        var models: [LoaderCostModel] = []
        for input in given {
            let path = input.path
            guard let data = RuleInputLoader.readWhole(path) else {
                loaded.errors.append(
                    "\(path): cannot read the file" + (LocalFiles.kind(path) == .missing ? " (no such file)" : ""))
                continue
            }
            guard !data.isEmpty else {
                loaded.errors.append("\(path): an empty file, not a measure report or a model")
                continue
            }
            let header: ReportHeader
            do {
                header = try JSONDecoder().decode(ReportHeader.self, from: data)
            } catch {
                if input.fromFolder {
                    loaded.skipped.append(path)
                } else {
                    loaded.errors.append("\(path): not a measure report or a model: \(RuleInputLoader.describe(error))")
                }
                continue
            }
            do {
                switch header.kind {
                case .loaderCostModel?: models.append(try JSONDecoder().decode(LoaderCostModel.self, from: data))
                case .measure?: measurements += try JSONDecoder().decode(MeasureReport.self, from: data).measurements
                default:
                    if input.fromFolder {
                        loaded.skipped.append(path)
                    } else {
                        loaded.errors.append("\(path): neither a premain measure report nor a loader cost model")
                    }
                }
            } catch {
                loaded.errors.append("\(path): \(RuleInputLoader.describe(error))")
            }
        }
        guard loaded.errors.isEmpty else { return loaded }
        let machines = Array(Set(measurements.map { $0.conditions.cpuModel ?? "unknown CPU" })).sorted()
        if machines.count > 1 {
            loaded.errors.append(
                "\(estimate): measure reports of \(machines.count) machines (\(machines.joined(separator: "; "))); a model is fitted on the reports of one machine, give those"
            )
            return loaded
        }
        if measurements.isEmpty {
            guard let last = models.last else {
                loaded.errors.append(
                    "\(estimate): no measure report or model among the files given (\(given.count) read)")
                return loaded
            }
            loaded.model = last
        } else {
            guard let fitted = LoaderCostModel.fit(measurements) else {
                loaded.errors.append(
                    "\(estimate): too few measured objects with loader times to fit a model (measure more programs with premain measure \(OutputOptions.formatName) json)"
                )
                return loaded
            }
            loaded.model = fitted
        }
        if let model = loaded.model, let here = MachineProbe.cpuModel(), model.machine != here {
            loaded.foreign = true
        }
        return loaded
    }

    /// Says the problems and notes of `loaded` on stderr; `false` when there were errors.
    static func report(_ loaded: Loaded, _ arguments: ParsedArguments) -> Bool {
        for error in loaded.errors { Console.error(error) }
        if !loaded.skipped.isEmpty {
            Console.note(
                "\(estimate): skipped \(Plural.count(loaded.skipped.count, "file")) that \(loaded.skipped.count == 1 ? "is" : "are") neither a measure report nor a model"
            )
        }
        if loaded.foreign, let model = loaded.model {
            Console.warning(
                "\(estimate): the cost model was fitted on \(model.machine), not on this machine (\(MachineProbe.cpuModel() ?? "unknown CPU")): its estimates are for that machine"
            )
        }
        return loaded.errors.isEmpty
    }

    /// Writes the model (fitted, or the one given, as a copy) to `--save-model`'s file through
    /// the one writer (the previous file stays when it cannot be written); `false` after one
    /// `Error:` line when it failed, `true` when written or not asked for.
    static func save(_ model: LoaderCostModel?, _ arguments: ParsedArguments) -> Bool {
        guard let path = arguments[saveModel], let model else { return true }
        return Console.emit(to: path) { () throws -> String in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: try encoder.encode(model), as: UTF8.self) + "\n"
        }
    }
}
