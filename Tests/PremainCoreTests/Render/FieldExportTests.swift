import Foundation
import PremainModel
import PremainRender
import PremainSystem
import PremainTestSupport
import Testing

/// The field exports as pure functions: the bucket layout and its quantile error, the
/// node_exporter textfile's lines and escapes, the OTLP/HTTP JSON's shape, and the POST
/// client's URL rules. FieldExportRealPartsTests feeds the same output to the real programs.
@Suite struct FieldExportTests {
    /// Launch times in seconds, the same on every run: a warm mode near 4 ms and a cold one
    /// near 27 ms (the issue's cold p90), spread log-normally by a fixed generator.
    static func launches(_ count: Int, seed: UInt64 = 33) -> [Double] {
        var state = seed
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(state >> 11) + 0.5) / Double(1 << 53)
        }
        return (0..<count).map { _ in
            let normal = sqrt(-2 * log(uniform())) * cos(2 * .pi * uniform())
            let median = uniform() < 0.7 ? 0.004 : 0.027
            return median * exp(0.35 * normal)
        }
    }

    /// The nearest-rank percentile: the smallest sample with at least `q` of them at or below.
    static func exactQuantile(_ samples: [Double], _ q: Double) -> Double {
        let sorted = samples.sorted()
        return sorted[max(0, Int((q * Double(sorted.count)).rounded(.up)) - 1)]
    }

    /// `samples` (seconds) counted as a field report counts them: each rounded to a whole
    /// nanosecond, in `FieldBuckets`' bucket of it.
    static func histogram(_ samples: [Double], labels: [ExportLabel] = [ExportLabel("executable", "/usr/bin/tool")])
        -> ExportHistogram
    {
        var counts = [UInt64](repeating: 0, count: FieldBuckets.count)
        for sample in samples { counts[bucket(sample)] += 1 }
        return ExportHistogram(
            name: "premain_launch_to_main_seconds", help: "Time from exec to main", labels: labels,
            upperBounds: FieldBuckets.boundsSeconds, bucketCounts: counts, sum: samples.reduce(0, +))
    }

    /// `FieldBuckets`' bucket of `seconds`.
    static func bucket(_ seconds: Double) -> Int {
        FieldBuckets.index(ofNanoseconds: Int64((seconds * 1e9).rounded()))
    }

    @Test func layoutIsTenMicrosecondsTimesTwoToTheITenthsUpToFiveMinutes() {
        let bounds = FieldBuckets.boundsSeconds
        #expect(bounds.first == 10e-6)
        #expect(bounds.count == 250)
        #expect(bounds[10] == 20e-6 && bounds[20] == 40e-6)
        #expect((bounds.last ?? 0) >= 300 && bounds[bounds.count - 2] < 300)
        for index in 1..<bounds.count {
            let ratio = bounds[index] / bounds[index - 1]
            #expect(ratio > 1.07 && ratio < 1.0725, "bound \(index)")
        }
    }

    @Test(arguments: [50, 400, 5_000]) func prometheusQuantileIsWithinTenPercentOfTheExactOne(count: Int) throws {
        for seed in [1, 2, 33] as [UInt64] {
            let samples = Self.launches(count, seed: seed)
            let histogram = Self.histogram(samples)
            #expect(histogram.count == UInt64(count))
            for q in [0.5, 0.9, 0.95, 0.99] {
                let exact = Self.exactQuantile(samples, q)
                let estimate = try #require(histogram.prometheusQuantile(q))
                // One bucket is 7.2 % wide: the estimate and the exact value share it.
                #expect(abs(estimate - exact) / exact < 0.073, "q=\(q) n=\(count): \(estimate) against \(exact)")
            }
        }
    }

    @Test func aSampleOnABoundCountsInThatBucket() {
        let bounds = FieldBuckets.boundsSeconds
        #expect(Self.bucket(bounds[5]) == 5)
        #expect(Self.bucket(bounds[5] + 1e-9) == 6)
        #expect(Self.bucket(0) == 0)
        #expect(Self.bucket(1_000) == bounds.count)
        let histogram = Self.histogram([1_000, 0.001])
        #expect(histogram.count == 2 && histogram.bucketCounts.last == 1 && histogram.sum == 1_000.001)
        #expect(histogram.cumulativeCounts.dropLast().last == 1)
    }

    @Test func textfileWritesBucketsUpToTheHighestNonEmptyThenInfSumAndCount() throws {
        let samples = [0.0001, 0.0001, 0.0004, 0.002]
        let text = NodeExporterTextfile.render(
            FieldExport(
                histograms: [
                    Self.histogram(
                        samples, labels: [ExportLabel("executable", "/bin/a"), ExportLabel("temperature", "cold")]),
                    Self.histogram([0.00001], labels: [ExportLabel("executable", "/bin/b")]),
                ],
                values: [
                    ExportValue(
                        name: "premain_field_excluded_records", help: "Records left out",
                        labels: [ExportLabel("reason", "dropped")], value: 3)
                ]))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "# HELP premain_launch_to_main_seconds Time from exec to main")
        #expect(lines[1] == "# TYPE premain_launch_to_main_seconds histogram")
        #expect(lines.filter { $0.hasPrefix("# TYPE premain_launch_to_main_seconds") }.count == 1)
        let bucketsOfA = lines.filter { $0.hasPrefix("premain_launch_to_main_seconds_bucket{executable=\"/bin/a\"") }
        // 2 ms is in the bucket of bound index 77 (10 µs × 2^7.7 = 2.08 ms): 78 finite buckets and +Inf.
        let highest = Self.bucket(0.002)
        #expect(bucketsOfA.count == highest + 2)
        #expect(
            bucketsOfA.first
                == "premain_launch_to_main_seconds_bucket{executable=\"/bin/a\",temperature=\"cold\",le=\"1e-05\"} 0")
        #expect(
            bucketsOfA.last
                == "premain_launch_to_main_seconds_bucket{executable=\"/bin/a\",temperature=\"cold\",le=\"+Inf\"} 4")
        #expect(bucketsOfA[highest].hasSuffix("} 4") && bucketsOfA[highest - 1].hasSuffix("} 3"))
        #expect(lines.contains("premain_launch_to_main_seconds_sum{executable=\"/bin/a\",temperature=\"cold\"} 0.0026"))
        #expect(lines.contains("premain_launch_to_main_seconds_count{executable=\"/bin/a\",temperature=\"cold\"} 4"))
        #expect(lines.filter { $0.hasPrefix("premain_launch_to_main_seconds_bucket{executable=\"/bin/b\"") }.count == 2)
        #expect(
            text.hasSuffix(
                "# TYPE premain_field_excluded_records gauge\npremain_field_excluded_records{reason=\"dropped\"} 3\n"))
        // No timestamps: every sample line is `name{labels} value`.
        for line in lines where !line.hasPrefix("#") {
            #expect(line.split(separator: "} ").last?.contains(" ") == false, "\(line)")
        }
        // A bound prints as its shortest round-trip text: 10 µs × 2^0.1 is 10,717.7 ns, 10,717 ns rounded down.
        #expect(text.contains("le=\"1.0717e-05\"} 0\n"))
    }

    @Test func labelValuesAreEscapedScalarByScalar() throws {
        #expect(NodeExporterTextfile.escape("a\\b\"c\nd") == "a\\\\b\\\"c\\nd")
        // "\r\n" is one Character; its line feed must still be escaped.
        #expect(NodeExporterTextfile.escape("x\r\ny") == "x\r\\ny")
        // A byte that is not UTF-8 (a raw-byte scalar of a file name) as the text \xFF.
        let raw = "/opt/caf" + String(Character(try #require(Unicode.Scalar(0x10FFFF as UInt32)))) + ".app"
        #expect(NodeExporterTextfile.escape(raw) == "/opt/caf\\\\xFF.app")
        #expect(NodeExporterTextfile.escape("é \"q\"", quotes: false) == "é \"q\"")
    }

    @Test func otlpJSONFollowsTheProto3MappingWithOneResourcePerExecutableAndVersion() throws {
        let labels = { (exe: String, version: String, temperature: String) in
            [
                ExportLabel("executable", exe), ExportLabel("version", version), ExportLabel("scenario", "default"),
                ExportLabel("temperature", temperature),
            ]
        }
        let export = FieldExport(histograms: [
            Self.histogram([0.003, 0.004], labels: labels("/usr/bin/tool", "ab12", "warm")),
            Self.histogram([0.03], labels: labels("/usr/bin/tool", "ab12", "cold")),
            Self.histogram([0.005], labels: labels("/usr/bin/other", "cd34", "warm")),
        ])
        let text = try OTLPMetricsJSON.render(
            export, resource: OTLPResource(serviceName: nil, hostName: "9f2c00000000beef"), scopeVersion: "1.0",
            startUnixNano: 1_700_000_000_000_000_000, timeUnixNano: 1_700_000_060_000_000_000)
        let request = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let resources = try #require(request["resourceMetrics"] as? [[String: Any]])
        #expect(resources.count == 2)
        let first = resources[0]
        let attributes = try #require((first["resource"] as? [String: Any])?["attributes"] as? [[String: Any]])
        let flat = Dictionary(
            uniqueKeysWithValues: attributes.compactMap { entry -> (String, String)? in
                guard let key = entry["key"] as? String, let value = entry["value"] as? [String: String] else {
                    return nil
                }
                return (key, value["stringValue"] ?? "")
            })
        #expect(
            flat == [
                "service.name": "tool", "service.version": "ab12", "host.name": "9f2c00000000beef",
                "process.executable.path": "/usr/bin/tool",
            ])
        let scope = try #require((first["scopeMetrics"] as? [[String: Any]])?.first)
        let metric = try #require((scope["metrics"] as? [[String: Any]])?.first)
        #expect(metric["name"] as? String == "premain.launch_to_main" && metric["unit"] as? String == "s")
        let histogram = try #require(metric["histogram"] as? [String: Any])
        #expect(histogram["aggregationTemporality"] as? Int == 2)
        let points = try #require(histogram["dataPoints"] as? [[String: Any]])
        #expect(points.count == 2)
        let warm = points[0]
        #expect(warm["count"] as? String == "2")
        #expect(warm["startTimeUnixNano"] as? String == "1700000000000000000")
        #expect(warm["timeUnixNano"] as? String == "1700000060000000000")
        let counts = try #require(warm["bucketCounts"] as? [String])
        #expect(counts.count == FieldBuckets.boundsSeconds.count + 1)
        #expect(counts.compactMap { UInt64($0) }.reduce(0, +) == 2)
        #expect((warm["explicitBounds"] as? [Double])?.count == FieldBuckets.boundsSeconds.count)
        #expect(abs((warm["sum"] as? Double ?? 0) - 0.007) < 1e-12)
        let pointKeys = (warm["attributes"] as? [[String: Any]])?.compactMap { $0["key"] as? String }
        #expect(pointKeys == ["scenario", "temperature"])
        #expect(text.contains("\"count\" : \"2\""))  // a string, not a number
    }

    @Test func theServiceNameGivenNamesEveryResource() throws {
        let text = try OTLPMetricsJSON.render(
            FieldExport(histograms: [Self.histogram([0.001])]),
            resource: OTLPResource(serviceName: "checkout", hostName: "web-1"),
            scopeVersion: "1.0", startUnixNano: 1, timeUnixNano: 2)
        #expect(text.contains("\"stringValue\" : \"checkout\"") && !text.contains("\"stringValue\" : \"tool\""))
    }

    @Test func urlsAreTakenApartAndHTTPSIsRefusedWithAdvice() throws {
        let plain = try HTTPPost.Target("http://127.0.0.1:4318/v1/metrics")
        #expect(plain == HTTPPost.Target(host: "127.0.0.1", port: 4318, path: "/v1/metrics"))
        let bare = try HTTPPost.Target("http://collector", defaultPath: "/v1/metrics")
        #expect(bare.host == "collector" && bare.port == 80 && bare.path == "/v1/metrics")
        let v6 = try HTTPPost.Target("http://[::1]:4318/", defaultPath: "/v1/metrics")
        #expect(v6.host == "::1" && v6.port == 4318 && v6.path == "/v1/metrics")
        for bad in [
            "https://collector:4318/v1/metrics", "ftp://x/", "http://:80/", "http://host:99999/", "http://u@h/",
        ] {
            do {
                _ = try HTTPPost.Target(bad)
                Issue.record("\(bad) was accepted")
            } catch {
                #expect(error.description.hasPrefix(bad + ": "), "\(error)")
            }
        }
        do {
            _ = try HTTPPost.Target("https://collector:4318/v1/metrics")
        } catch {
            #expect(error.message.contains("local OpenTelemetry collector"))
        }
    }

    @Test func aRefusedConnectionIsOneLineNamingTheURL() throws {
        let port = try LocalService.freePort()
        let url = "http://127.0.0.1:\(port)/v1/metrics"
        do {
            _ = try HTTPPost.send(Array("{}".utf8), to: url, contentType: "application/json", timeoutSeconds: 30)
            Issue.record("a POST to a closed port succeeded")
        } catch {
            #expect(error.description == url + ": connection refused")
        }
    }

    @Test func aCollectorThatNeverAnswersTimesOut() throws {
        let (fd, port) = try LocalService.silentListener()
        defer { close(fd) }
        let url = "http://127.0.0.1:\(port)/v1/metrics"
        do {
            let answer = try HTTPPost.send(
                Array("{}".utf8), to: url, contentType: "application/json", timeoutSeconds: 0.3)
            Issue.record("a server that never answers answered \(answer)")
        } catch {
            #expect(error.description == url + ": timed out")
        }
    }
}
