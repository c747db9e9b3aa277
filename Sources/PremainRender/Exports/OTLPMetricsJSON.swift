/// Who sent an OTLP export: the resource attributes every series carries.
public struct OTLPResource: Equatable, Sendable {
    /// `service.name`: the operator's `--service-name`; `nil` names each service after its
    /// executable's file name.
    public var serviceName: String?
    /// `host.name`: the operator's `--host-name`, else this machine's host name.
    public var hostName: String

    public init(serviceName: String?, hostName: String) {
        self.serviceName = serviceName
        self.hostName = hostName
    }
}

/// OTLP/HTTP's JSON encoding of an `ExportMetricsServiceRequest` (opentelemetry-proto's
/// `collector/metrics/v1`, the proto3 JSON mapping with OTLP's rules: lowerCamelCase keys,
/// 64-bit integers as decimal strings, enums as integers).
///
/// One `resourceMetrics` per executable and version: a series' `executable` and `version`
/// labels become the resource's `process.executable.path` and `service.version`, beside
/// `service.name` and `host.name`; its other labels (`scenario`, `temperature`, `mark`) are the
/// data point's attributes. A histogram `premain_launch_to_main_seconds` is sent as the metric
/// `premain.launch_to_main` with unit `s`, which a collector's Prometheus exporter names
/// `premain_launch_to_main_seconds` again, so a fleet that mixes the textfile and OTLP sees
/// one name.
///
/// Temporality is CUMULATIVE, with `startTimeUnixNano` the start of the report's window (its
/// earliest record) and `timeUnixNano` its end: an export reads the whole spool, so each one
/// holds the launches of the one before plus the new ones. DELTA would count every launch
/// again at each export of a growing spool; when the spool is rotated the window starts
/// later, which CUMULATIVE reads as a reset (a new start time), as OTLP specifies. It is also
/// what a collector's Prometheus exporters accept without a delta-to-cumulative processor.
public enum OTLPMetricsJSON {
    /// `AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE`.
    static let cumulative = 2

    /// The labels that name the resource, and the resource attribute each becomes.
    static let resourceLabels: [(label: String, attribute: String)] = [
        ("executable", "process.executable.path"), ("version", "service.version"),
    ]

    /// The request's JSON text: every histogram of `export` (its other values are not sent:
    /// OTLP has no place for a report's exclusions beside a histogram), grouped into resources.
    /// `scopeVersion` is premain's version.
    public static func render(
        _ export: FieldExport, resource: OTLPResource, scopeVersion: String, startUnixNano: UInt64,
        timeUnixNano: UInt64
    ) throws -> String {
        var resources: [[ExportLabel]] = []
        var byResource: [[ExportLabel]: [ExportHistogram]] = [:]
        for histogram in export.histograms {
            let key = resourceLabels.compactMap { entry in
                histogram.labels.first { $0.key == entry.label }.map { ExportLabel(entry.attribute, $0.value) }
            }
            if byResource[key] == nil { resources.append(key) }
            byResource[key, default: []].append(histogram)
        }
        let request = Request(
            resourceMetrics: resources.map { key in
                let executable = key.first { $0.key == "process.executable.path" }?.value
                let service =
                    resource.serviceName ?? executable.map { String($0.split(separator: "/").last ?? "") }
                    ?? "premain"
                let attributes =
                    [ExportLabel("service.name", service), ExportLabel("host.name", resource.hostName)] + key
                return ResourceMetrics(
                    resource: Resource(attributes: attributes.map(KeyValue.init)),
                    scopeMetrics: [
                        ScopeMetrics(
                            scope: Scope(name: "premain", version: scopeVersion),
                            metrics: metrics(byResource[key] ?? [], startUnixNano, timeUnixNano))
                    ])
            })
        return String(decoding: try PrettyJSONEncoder.encode(request), as: UTF8.self) + "\n"
    }

    /// The histograms of one resource, one metric per name, its series as data points.
    static func metrics(_ histograms: [ExportHistogram], _ start: UInt64, _ time: UInt64) -> [Metric] {
        NodeExporterTextfile.families(histograms, name: \.name).map { family in
            Metric(
                name: metricName(family[0].name), description: family[0].help, unit: "s",
                histogram: Histogram(
                    dataPoints: family.map { histogram in
                        let resourceKeys = Set(resourceLabels.map(\.label))
                        return DataPoint(
                            attributes: histogram.labels.filter { !resourceKeys.contains($0.key) }.map(KeyValue.init),
                            startTimeUnixNano: String(start), timeUnixNano: String(time),
                            count: String(histogram.count), sum: histogram.sum,
                            bucketCounts: histogram.bucketCounts.map { String($0) },
                            explicitBounds: histogram.upperBounds)
                    }, aggregationTemporality: cumulative))
        }
    }

    /// `premain_launch_to_main_seconds` → `premain.launch_to_main`: the unit goes to `unit`,
    /// the namespace is dotted (OpenTelemetry's naming).
    static func metricName(_ prometheusName: String) -> String {
        var name = Substring(prometheusName)
        if name.hasSuffix("_seconds") { name = name.dropLast("_seconds".count) }
        if name.hasPrefix("premain_") { return "premain." + name.dropFirst("premain_".count) }
        return String(name)
    }

    // MARK: The messages, as opentelemetry-proto names their fields

    struct Request: Encodable { var resourceMetrics: [ResourceMetrics] }
    struct ResourceMetrics: Encodable {
        var resource: Resource
        var scopeMetrics: [ScopeMetrics]
    }
    struct Resource: Encodable { var attributes: [KeyValue] }
    struct ScopeMetrics: Encodable {
        var scope: Scope
        var metrics: [Metric]
    }
    struct Scope: Encodable {
        var name: String
        var version: String
    }
    struct Metric: Encodable {
        var name: String
        var description: String
        var unit: String
        var histogram: Histogram
    }
    struct Histogram: Encodable {
        var dataPoints: [DataPoint]
        var aggregationTemporality: Int
    }
    struct DataPoint: Encodable {
        var attributes: [KeyValue]
        var startTimeUnixNano: String
        var timeUnixNano: String
        var count: String
        var sum: Double
        var bucketCounts: [String]
        var explicitBounds: [Double]
    }
    struct KeyValue: Encodable {
        var key: String
        var value: AnyValue
        init(_ label: ExportLabel) {
            key = label.key
            value = AnyValue(stringValue: ExportLabel.text(label.value))
        }
    }
    struct AnyValue: Encodable { var stringValue: String }
}
