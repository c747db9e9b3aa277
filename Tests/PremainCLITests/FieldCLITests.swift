import Foundation
import PremainTestSupport
import Testing

/// Issue 33: `premain field` as users run it: help, usage errors and exit codes, `path` and `env`
/// with and without a recorder beside the binary, `run` setting PREMAIN_T0 and LD_AUDIT for
/// the command it becomes, `report` of a spool folder in every format and of its own JSON, and
/// `compare` verdicts on written reports.
@Suite(.serialized)
struct FieldCLITests {
    static let boot = "41ab000000001234"

    /// A spool folder of `count` launches of /usr/bin/tool version `buildId`, birth to main
    /// `baseNs + i × stepNs`, plus one mark per launch.
    static func spool(
        _ name: String, buildId: String = "abc123", count: Int = 400, baseNs: Int = 2_000_000,
        stepNs: Int = 1_000
    ) throws -> String {
        let folder = try TemporaryFolders.make(name)
        var text = ""
        for index in 0..<count {
            let t0 = 1_000_000_000 + index * 100_000_000
            let main = t0 + baseNs + index * stepNs
            text +=
                "premain-record/1 kind=launch pid=\(100 + index) uid=1000 host=00000000000000aa boot=\(boot) exe=/usr/bin/tool buildid=\(buildId) arg1=serve t0src=env t0=\(t0) version=\(t0 + 500_000) consistent=\(main - 100) main=\(main) objects=4 rbytes=0 majflt=0 minflt=99\n"
            text += "premain-record/1 kind=mark pid=\(100 + index) boot=\(boot) t=\(main + 3_000_000) name=ready\n"
        }
        text += "garbage line\n"
        try text.write(toFile: folder + "/1000.records", atomically: true, encoding: .utf8)
        try "\n".write(toFile: folder + "/1000.drops", atomically: true, encoding: .utf8)
        return folder
    }

    /// A copy of premain in DIR/bin, with a real (empty) rtld-audit library in DIR/lib/premain
    /// when `recorder` is true.
    static func installedCopy(_ name: String, recorder: Bool) throws -> (premain: String, recorder: String) {
        let root = try TemporaryFolders.make(name)
        try FileManager.default.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try Shell.copyExecutable(CLI.binary, to: root + "/bin/premain")
        let library = root + "/lib/premain/libpremain-record.so"
        if recorder {
            try FileManager.default.createDirectory(atPath: root + "/lib/premain", withIntermediateDirectories: true)
            let source = root + "/audit.c"
            try "unsigned int la_version(unsigned int version) { return version; }\n".write(
                toFile: source, atomically: true, encoding: .utf8)
            let built = try Shell.run(["cc", "-shared", "-fPIC", "-o", library, source])
            try #require(built.status == 0, "cc failed: \(built.stderr)")
        }
        return (root + "/bin/premain", library)
    }

    @Test func helpListsTheActionsAndTheOverviewListsField() throws {
        let help = try CLI.run(["field", "--help"])
        #expect(help.status == 0)
        for word in ["path", "env", "run", "report", "compare", "--threshold-ms", "--old-version", "PREMAIN_T0"] {
            #expect(help.stdout.contains(word), "\(word)")
        }
        #expect(try CLI.run(["help", "field"]).stdout == help.stdout)
        #expect(try CLI.run(["--help"]).stdout.contains("  field "))
    }

    @Test func usageErrorsExit64() throws {
        for arguments in [
            ["field"], ["field", "nothing"], ["field", "run"], ["field", "path", "extra"],
            ["field", "compare"], ["field", "compare", "only-one"], ["field", "report", "--format", "pdf"],
            ["field", "report", "--", "/bin/true"],
        ] {
            let result = try CLI.run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: "), "\(arguments)")
        }
    }

    @Test func pathAndEnvNameTheRecorderOrBothPlacesTheyLooked() throws {
        let missing = try Self.installedCopy("field-no-recorder", recorder: false)
        let failed = try CLI.run(["field", "path"], executable: missing.premain)
        #expect(failed.status == 3)
        #expect(
            failed.stderr.contains("/bin/libpremain-record.so")
                && failed.stderr.contains("/lib/premain/libpremain-record.so"))
        #expect(try CLI.run(["field", "env"], executable: missing.premain).status == 3)

        let installed = try Self.installedCopy("field-recorder", recorder: true)
        let path = try CLI.run(["field", "path"], executable: installed.premain)
        #expect(path.status == 0, "\(path.stderr)")
        let printed = path.stdout.trimmingCharacters(in: .newlines)
        #expect(printed.hasSuffix("/lib/premain/libpremain-record.so") && !printed.contains(".."))
        #expect(FileManager.default.fileExists(atPath: printed))
        let env = try CLI.run(
            ["field", "env"], environment: ["PREMAIN_FIELD_DIR": "/srv/spool"], executable: installed.premain)
        #expect(env.status == 0)
        #expect(env.stdout.contains("export LD_AUDIT='\(printed)'\"${LD_AUDIT:+:$LD_AUDIT}\""))
        #expect(env.stdout.contains("export PREMAIN_FIELD_DIR='/srv/spool'"))
        #expect(
            env.stdout.contains("[Service]\nEnvironment=LD_AUDIT=\(printed)\nEnvironment=PREMAIN_FIELD_DIR=/srv/spool"))
        #expect(env.stdout.contains("install -d -m 1777 '/srv/spool'"))
    }

    /// `field run -- /usr/bin/env`: the command's environment has PREMAIN_T0 = a CLOCK_MONOTONIC
    /// time between the run's start and end and premain's pid (which the command keeps: exec in
    /// the same process), and LD_AUDIT with the recorder first and the existing list after it.
    @Test func runStampsBirthAndPrependsTheRecorder() throws {
        let installed = try Self.installedCopy("field-run", recorder: true)
        let other = installed.recorder.replacingOccurrences(of: "libpremain-record.so", with: "other.so")
        try FileManager.default.copyItem(atPath: installed.recorder, toPath: other)
        func now() -> Int {
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return time.tv_sec * 1_000_000_000 + time.tv_nsec
        }
        let before = now()
        let result = try CLI.run(
            ["field", "run", "--", "/usr/bin/env"], environment: ["LD_AUDIT": other], executable: installed.premain)
        let after = now()
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let stamp = try #require(lines.first { $0.hasPrefix("PREMAIN_T0=") }?.dropFirst("PREMAIN_T0=".count))
        let parts = stamp.split(separator: ":")
        try #require(parts.count == 2)
        let t0 = try #require(Int(parts[0]))
        #expect(t0 > before && t0 < after)
        #expect((Int(parts[1]) ?? 0) > 1)
        let recorder = try #require(
            CLI.run(["field", "path"], executable: installed.premain).stdout.split(separator: "\n").first)
        #expect(lines.contains("LD_AUDIT=\(recorder):\(other)"))
        // The recorder already in the list is not loaded twice.
        let again = try CLI.run(
            ["field", "run", "--", "/usr/bin/env"], environment: ["LD_AUDIT": "\(other):\(recorder)"],
            executable: installed.premain)
        #expect(again.stdout.split(separator: "\n").contains("LD_AUDIT=\(recorder):\(other)"[...]))

        // The pid in PREMAIN_T0 is the command's own (the child writes it before execve).
        let shell = try CLI.run(
            ["field", "run", "--", "/bin/sh", "-c", "echo \"$$ $PREMAIN_T0\""], executable: installed.premain)
        let words = shell.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ":" })
        #expect(words.count == 3 && words[0] == words[2], "\(shell.stdout)")
        #expect(try CLI.run(["field", "run", "--", "no-such-command-33"], executable: installed.premain).status == 3)
    }

    @Test func reportReadsAFolderInEveryFormatAndRendersItsOwnJSONAgain() throws {
        let folder = try Self.spool("field-report")
        let text = try CLI.run(["field", "report", folder])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("premain field: 1 row from 400 launch records on 1 host"))
        #expect(text.stdout.contains("/usr/bin/tool") && text.stdout.contains("serve") && text.stdout.contains("warm"))
        #expect(text.stdout.contains("Measurement contract") && text.stdout.contains("malformed lines 1"))
        #expect(text.stdout.contains("dropped by the recorder 1"))
        let json = try CLI.run(["field", "report", folder, "--format", "json"])
        #expect(json.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(document["kind"] as? String == "field")
        let row = try #require((document["rows"] as? [[String: Any]])?.first)
        let toMain = try #require(row["timeToMain"] as? [String: Any])
        #expect(toMain["samples"] as? Int == 400)
        #expect(toMain["p50Ms"] as? Double == 2.199)  // rank 200 of 2.000 + i × 0.001 ms
        #expect(toMain["p90Ms"] as? Double == 2.359)  // rank 360
        let saved = folder + "/../field-report.json"
        try json.stdout.write(toFile: saved, atomically: true, encoding: .utf8)
        #expect(try ReportSchemaTests.pythonViolations(schema: "field", files: [saved]) == [])
        let again = try CLI.run(["field", "report", saved])
        #expect(again.stdout == text.stdout)
        let markdown = try CLI.run(["field", "report", folder, "--format", "markdown"])
        #expect(markdown.stdout.hasPrefix("## premain field") && markdown.stdout.contains("| `/usr/bin/tool` |"))
        let html = try CLI.run(["field", "report", folder, "--format", "html"])
        #expect(html.stdout.contains("<svg") && html.stdout.contains("<h2>Measurement contract</h2>"))
        #expect(
            !html.stdout.contains("<script") && !html.stdout.contains("http://") && !html.stdout.contains("https://"))

        let absent = try CLI.run(["field", "report", folder + "/missing"])
        #expect(absent.status == 3 && absent.stderr.contains("missing"))
        let byEnvironment = try CLI.run(["field", "report"], environment: ["PREMAIN_FIELD_DIR": folder])
        #expect(byEnvironment.stdout == text.stdout)
        let history = try CLI.run(["history", "add", saved, "--db", folder + "/../history.sqlite", "--commit", "c1"])
        #expect(history.status == 0, "\(history.stderr)")
        let show = try CLI.run(["history", "show", "--db", folder + "/../history.sqlite"])
        #expect(show.stdout.contains("field./usr/bin/tool[serve].warm.main.p90"))
    }

    /// Issue 35 item 5: with premain.json's launches the rows are named as measure, compare and
    /// pr name theirs, in the report and in the export; a broken launches section is exit 64.
    @Test func reportNamesRowsForTheDeclaredLaunches() throws {
        let folder = try Self.spool("field-launches")
        // In a folder of its own: a premain.json in the shared temporary root would be found by
        // every other test's commands there.
        let config = try TemporaryFolders.make("field-launches-config") + "/premain.json"
        try """
        { "launches": [
            { "name": "version", "run": ["tool", "--version"], "until": "first-output" },
            { "name": "daemon", "run": ["bin/tool", "serve", "--port", "0"], "until": "main" } ] }
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let text = try CLI.run(["field", "report", folder, "--config", config])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("daemon (serve)"), "\(text.stdout)")
        let json = try CLI.run(["field", "report", folder, "--config", config, "--format", "json"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((document["rows"] as? [[String: Any]])?.first?["launch"] as? String == "daemon")
        let plain = try CLI.run(["field", "report", folder, "--no-config", "--format", "json"])
        #expect(!plain.stdout.contains("\"launch\""))
        let textfile = (config as NSString).deletingLastPathComponent + "/field.prom"
        let export = try CLI.run(["field", "export", folder, "--config", config, "--textfile", textfile])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(try String(contentsOfFile: textfile, encoding: .utf8).contains("launch=\"daemon\""))
        try #"{ "launches": [ { "name": "x", "run": "tool" } ] }"#.write(
            toFile: config, atomically: true, encoding: .utf8)
        let broken = try CLI.run(["field", "report", folder, "--config", config])
        #expect(broken.status == 64 && broken.stderr.contains("run"), "\(broken.stderr)")
        let overwrite = try CLI.run(["field", "report", folder, "--config", config, "--output", config])
        #expect(overwrite.status == 64)
    }

    /// `field export --textfile`: node_exporter's file holds the report's counts bucket by bucket
    /// (its quantile as Prometheus computes it is within 10 % of the report's exact p90), is
    /// refused when it names a spool file, and is written even when the collector cannot be
    /// reached (that destination fails alone, exit 70).
    @Test func exportWritesTheReportsCountsAndOneFailedDestinationLosesNoOther() throws {
        let folder = try Self.spool("field-export")
        let textfile = folder + "/../field-export.prom"
        let written = try CLI.run(["field", "export", folder, "--textfile", textfile])
        #expect(written.status == 0 && written.stderr.isEmpty, "\(written.stderr)")
        let lines = try String(contentsOfFile: textfile, encoding: .utf8).split(separator: "\n")
        let toMain = lines.filter { $0.hasPrefix("premain_launch_to_main_seconds_bucket{") }
        #expect(lines.contains { $0.hasPrefix("premain_launch_to_main_seconds_count{") && $0.hasSuffix("} 400") })
        #expect(
            lines.contains { $0.hasPrefix("premain_launch_to_mark_seconds_count{") && $0.contains("mark=\"ready\"") })
        #expect(lines.contains { $0.hasPrefix("premain_field_excluded_records{reason=\"malformed\"} 1") })
        // Prometheus' histogram_quantile(0.9) over the cumulative buckets.
        let buckets: [(le: Double, count: Double)] = toMain.compactMap { line in
            guard let le = line.range(of: ",le=\""), let end = line[le.upperBound...].firstIndex(of: "\""),
                let count = Double(line.split(separator: " ").last ?? "")
            else { return nil }
            let bound = String(line[le.upperBound..<end])
            return (bound == "+Inf" ? .infinity : Double(bound) ?? .nan, count)
        }
        let rank = 0.9 * 400
        let index = try #require(buckets.firstIndex { $0.count >= rank })
        let lower = index == 0 ? 0 : buckets[index - 1].le
        let below = index == 0 ? 0 : buckets[index - 1].count
        let quantile = lower + (buckets[index].le - lower) * (rank - below) / (buckets[index].count - below)
        #expect(abs(quantile * 1000 - 2.359) / 2.359 < 0.1, "histogram_quantile \(quantile * 1000) ms, exact 2.359 ms")

        let onInput = try CLI.run(["field", "export", folder, "--textfile", folder + "/1000.records"])
        #expect(onInput.status == 64 && onInput.stderr.contains("is also an input"), "\(onInput.stderr)")
        let nowhere = try CLI.run(["field", "export", folder])
        #expect(nowhere.status == 64 && nowhere.stderr.contains("--textfile"))
        let https = try CLI.run(["field", "export", folder, "--otlp", "https://collector.example/v1/metrics"])
        #expect(https.status == 64, "\(https.stderr)")

        try FileManager.default.removeItem(atPath: textfile)
        let port = try LocalService.freePort()
        let refused = try CLI.run([
            "field", "export", folder, "--textfile", textfile, "--otlp", "http://127.0.0.1:\(port)", "--timeout", "2",
        ])
        #expect(refused.status == 70, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("Error: http://127.0.0.1:\(port)"), "\(refused.stderr)")
        #expect(FileManager.default.fileExists(atPath: textfile))
    }

    /// Issue 33: a service that says READY=1 through sd_notify gets a `ready` mark with no code
    /// change where premain is its launcher. `field run --notify` records it; with NOTIFY_SOCKET
    /// set (a service manager waiting), every message is passed on to it unchanged, and premain
    /// exits with the command's status.
    @Test func runRecordsSdNotifyReadyAsAMarkAndPassesTheMessagesOn() throws {
        let program = try Samples.path("field-mark/field-notify")
        let spool = try TemporaryFolders.make("field-notify")
        let forced = try CLI.run(
            ["field", "run", "--notify", "--", program, "3"], environment: ["PREMAIN_FIELD_DIR": spool])
        #expect(forced.status == 3, "\(forced.stderr)")
        #expect(forced.stdout == "served\n")

        // A service manager's socket: a datagram socket at a path, read after the run.
        let upstream = spool + "/../notify-\(getpid()).sock"
        unlink(upstream)
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(receiver >= 0)
        defer {
            close(receiver)
            unlink(upstream)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in upstream.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(receiver, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0, "bind \(upstream): errno \(errno)")
        let managed = try CLI.run(
            ["field", "run", "--", program], environment: ["PREMAIN_FIELD_DIR": spool, "NOTIFY_SOCKET": upstream])
        #expect(managed.status == 0, "\(managed.stderr)")
        var received: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(receiver, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { break }
            received.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
        #expect(received == ["STATUS=starting", "READY=1\nSTATUS=serving"])

        let records = try String(contentsOfFile: spool + "/\(getuid()).records", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        func value(_ line: String, _ key: String) -> String? {
            line.split(separator: " ").first { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
        }
        let launches = records.filter { $0.contains(" kind=launch ") && $0.contains("field-notify") }
        let marks = records.filter { $0.contains(" kind=mark ") }
        #expect(launches.count == 2 && marks.count == 2, "\(records)")
        for (launch, mark) in zip(launches, marks) {
            #expect(value(launch, "t0src") == "env")
            #expect(value(launch, "pid") == value(mark, "pid") && value(launch, "boot") == value(mark, "boot"))
            #expect(value(mark, "name") == "ready")
            #expect((Int(value(mark, "t") ?? "") ?? 0) > (Int(value(launch, "main") ?? "") ?? .max))
        }
        let report = try CLI.run(["field", "report", spool])
        #expect(report.stdout.contains("time to mark 'ready'"), "\(report.stdout)")
    }

    @Test func compareGivesTheVerdictAndItsExitCode() throws {
        let old = try Self.spool("field-old", buildId: "aaaa1111")
        let slower = try Self.spool("field-slower", buildId: "bbbb2222", baseNs: 3_000_000)
        let same = try Self.spool("field-same", buildId: "cccc3333")
        let regression = try CLI.run(["field", "compare", old, slower])
        #expect(regression.status == 2, "\(regression.stdout)\(regression.stderr)")
        #expect(regression.stdout.hasPrefix("premain field compare: regression"))
        let improvement = try CLI.run(["field", "compare", slower, old, "--format", "json"])
        #expect(improvement.status == 0)
        #expect(improvement.stdout.contains("\"verdict\" : \"improvement\""))
        let comparison = old + "/../field-compare.json"
        try improvement.stdout.write(toFile: comparison, atomically: true, encoding: .utf8)
        #expect(try ReportSchemaTests.pythonViolations(schema: "field-compare", files: [comparison]) == [])
        let noChange = try CLI.run(["field", "compare", old, same, "--threshold-ms", "0.5"])
        #expect(noChange.status == 0 && noChange.stdout.hasPrefix("premain field compare: no change"))
        let strict = try CLI.run(["field", "compare", old, same, "--threshold-ms", "0", "--threshold-percent", "0"])
        #expect(strict.status == 5 && strict.stdout.hasPrefix("premain field compare: inconclusive"))
        let missing = try CLI.run(["field", "compare", old, "--old-version", "aaaa", "--new-version", "ffff"])
        #expect(missing.status == 3 && missing.stderr.contains("no launch of version ffff"))
    }
}
