import PremainField
import PremainModel
import PremainRender
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `premain field export`'s destinations: a node_exporter textfile (`--textfile`) and an
/// OpenTelemetry collector's OTLP/HTTP receiver (`--otlp`), so a fleet needs no premain server.
/// Both may be given at once; at least one must be.
enum FieldExportOptions {
    static let textfile = Option<String?>(
        "--textfile", value: "path", kind: .path(.file),
        help:
            "Write the histograms for node_exporter's textfile collector (a .prom file in its folder), whole or not at all"
    )
    static let otlp = Option<String?>(
        "--otlp", value: "url",
        help: "POST them as OTLP/HTTP JSON to a collector (http only; /v1/metrics when the URL has no path)")
    static let serviceName = Option<String?>(
        "--service-name", value: "name", help: "otlp: the resource's service.name",
        defaultText: "each executable's file name")
    static let hostName = Option<String?>(
        "--host-name", value: "name", help: "otlp: the resource's host.name", defaultText: "this machine's host name"
    )
    static let timeout = Option<Double>(
        "--timeout", value: "seconds", help: "otlp: give up on the collector after this long", default: 10,
        in: 0.1...600)

    static let options: [any DeclaredOption] = [textfile, otlp, serviceName, hostName, timeout]

    /// The path OTLP/HTTP exporters add to an endpoint given without one.
    static let otlpPath = "/v1/metrics"

    /// Checks the destinations before any work: one at least, an http URL, a textfile path that
    /// is not a folder.
    static func validate(_ arguments: ParsedArguments) throws(UsageError) {
        guard arguments[textfile] != nil || arguments[otlp] != nil else {
            throw UsageError(message: "export needs \(textfile) <path>, \(otlp) <url>, or both")
        }
        if let url = arguments[otlp] {
            do {
                _ = try HTTPPost.Target(url, defaultPath: otlpPath)
            } catch {
                throw UsageError(message: "\(otlp): \(error.description)")
            }
        }
        if let path = arguments[textfile], path.isEmpty || path.hasSuffix("/") || LocalFiles.kind(path) == .folder {
            throw UsageError(message: "\(textfile) takes a file path, not the folder '\(TextSafety.display(path))'")
        }
    }

    /// Writes `report`'s histograms where the arguments say. OTLP's `host.name` is
    /// `--host-name`, else this machine's name (the spool is this machine's); the window is the
    /// oldest and newest writes of the spool files the report read (the current time when it
    /// has none). Returns `.success`, or `.internalError` after one `Error:` line per
    /// destination that failed (the file could not be written, the collector could not be
    /// reached or did not answer 2xx), naming the file or URL.
    static func write(_ report: FieldReport, _ arguments: ParsedArguments) -> ExitCode {
        let export = FieldExportBuilder.export(report)
        let now = UInt64(max(0, time(nil))) * 1_000_000_000
        let population = report.contract.population
        let windowStartUnixNano = population.oldestFileWrite.flatMap(FieldReportBuilder.unixNanoseconds) ?? now
        let windowEndUnixNano = max(
            population.newestFileWrite.flatMap(FieldReportBuilder.unixNanoseconds) ?? now, windowStartUnixNano)
        let hostID = LocalFiles.hostName() ?? "unknown"
        var status = ExitCode.success
        if let path = arguments[textfile] {
            // Through the one writer of outputs: a temporary `.premain-output-…` file beside the
            // target (a name the textfile collector, which reads `*.prom`, skips), renamed over it.
            if let problem = Console.write(NodeExporterTextfile.render(export), to: path) {
                Console.error(problem)
                status = .internalError
            }
        }
        if let url = arguments[otlp] {
            let resource = OTLPResource(serviceName: arguments[serviceName], hostName: arguments[hostName] ?? hostID)
            do {
                let body = try OTLPMetricsJSON.render(
                    export, resource: resource, scopeVersion: premainVersion, startUnixNano: windowStartUnixNano,
                    timeUnixNano: windowEndUnixNano)
                let answer = try HTTPPost.send(
                    Array(body.utf8), to: url, contentType: "application/json", defaultPath: otlpPath,
                    timeoutSeconds: arguments[timeout])
                if !(200..<300).contains(answer.code) {
                    Console.error("\(url): the collector answered \(answer.code) \(answer.reason)")
                    status = .internalError
                }
            } catch let failure as HTTPPost.Failure {
                Console.error(failure.description)
                status = .internalError
            } catch {
                Console.error("\(url): cannot encode the request: \(error)")
                status = .internalError
            }
        }
        return status
    }
}
