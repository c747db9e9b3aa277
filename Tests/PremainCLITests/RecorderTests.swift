import Foundation
import PremainTestSupport
import XCTest

/// libpremain-record.so (docs/recorder.md) on real programs: the C, C++ and Swift samples
/// launched hundreds of times under LD_AUDIT, every record checked against docs/field-record.md
/// and against independent readers (the loader's own list of objects, readelf's build-id). The
/// tests assert what was written and what the program saw, never how long anything took.
final class RecorderTests: XCTestCase {
    /// The recorder `swift build` puts beside the premain binary.
    static var recorder: String {
        URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().appendingPathComponent("libpremain-record.so")
            .path
    }

    /// One line of the spool: its kind and each key's values (`o` repeats).
    struct Record {
        var line: String
        var values: [String: [String]]

        subscript(_ key: String) -> String? { values[key]?.first }
        func number(_ key: String) -> UInt64? { self[key].flatMap { UInt64($0) } }
        var kind: String? { self["kind"] }
    }

    static let launchKeys = [
        "pid", "uid", "host", "boot", "exe", "t0src", "version", "consistent", "main", "objects", "majflt", "minflt",
    ]

    /// `[a-zA-Z0-9.]`
    static func isKeyByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2E
    }

    /// Every line of `text`, which must be whole records: `premain-record/1`, then `key=value`
    /// fields with keys of `[a-zA-Z0-9.]`, values without a byte the format escapes.
    static func records(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [Record] {
        XCTAssertTrue(text.isEmpty || text.hasSuffix("\n"), "the spool ends in a cut record", file: file, line: line)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { row in
            var fields = row.split(separator: " ", omittingEmptySubsequences: false)
            XCTAssertEqual(fields.first, "premain-record/1", String(row), file: file, line: line)
            XCTAssertLessThanOrEqual(row.utf8.count + 1, 4096, file: file, line: line)
            fields.removeFirst()
            var values: [String: [String]] = [:]
            for field in fields {
                let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let keyIsValid =
                    parts.count == 2 && !parts[0].isEmpty
                    && parts[0].utf8.allSatisfy(Self.isKeyByte)
                XCTAssertTrue(keyIsValid, "bad field \(field) in \(row)", file: file, line: line)
                guard parts.count == 2 else { continue }
                XCTAssertFalse(
                    parts[1].utf8.contains { $0 <= 0x20 || $0 >= 0x7F }, "unescaped byte in \(field)", file: file,
                    line: line)
                values[String(parts[0]), default: []].append(String(parts[1]))
            }
            return Record(line: String(row), values: values)
        }
    }

    /// The records of this user in `spool` (none when the file is missing).
    static func spoolRecords(_ spool: String, file: StaticString = #filePath, line: UInt = #line) -> [Record] {
        let path = spool + "/\(getuid()).records"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return records(text, file: file, line: line)
    }

    /// The size of `spool`'s drops file: the count of dropped records.
    static func drops(_ spool: String) -> Int {
        let attributes = try? FileManager.default.attributesOfItem(atPath: spool + "/\(getuid()).drops")
        return (attributes?[.size] as? Int) ?? 0
    }

    /// Runs `script` in bash with the recorder active and its spool in `spool`.
    static func recorded(
        _ script: String, spool: String, environment: [String: String] = [:], recorder: Bool = true,
        audit: String = RecorderTests.recorder
    ) throws -> ShellResult {
        var env = environment
        env["PREMAIN_FIELD_DIR"] = spool
        env["PREMAIN_SCRIPT_AUDIT"] = recorder ? audit : ""
        // LD_AUDIT is set inside bash, for the programs it starts, so bash itself leaves no record.
        return try Shell.run(
            [
                "bash", "-c",
                "export LD_AUDIT=\"$PREMAIN_SCRIPT_AUDIT\"; [ -n \"$LD_AUDIT\" ] || unset LD_AUDIT; " + script,
            ],
            environment: env)
    }

    static func monotonicNow() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The loader's own count of what it loads (`LD_TRACE_LOADED_OBJECTS`: the vDSO, ld.so and
    /// each library), plus the executable itself.
    static func loadedObjects(_ program: String) throws -> Int {
        let trace = try Shell.run(["bash", "-c", "LD_TRACE_LOADED_OBJECTS=1 \"$0\"", program])
        XCTAssertEqual(trace.status, 0, trace.stderr)
        return trace.stdout.split(separator: "\n").count + 1
    }

    static func buildID(_ program: String) throws -> String? {
        let notes = try Shell.run(["readelf", "-nW", program])
        return notes.stdout.split(separator: "\n").first { $0.contains("Build ID:") }
            .map { String($0.split(separator: " ").last ?? "") }
    }

    /// The C++ sample with its self-timed initializers at 0 ms.
    static let noCosts = [
        "PREMAIN_SAMPLE_COST_REGISTRY_MS": "0", "PREMAIN_SAMPLE_COST_PLUGINS_MS": "0",
        "PREMAIN_SAMPLE_COST_CTOR_C_MS": "0", "PREMAIN_SAMPLE_COST_CTOR_101_MS": "0",
        "PREMAIN_SAMPLE_COST_MAIN_CPP_MS": "0",
    ]

    func testTheRecorderNeedsNothingAndDefinesOnlyItsFourHooks() throws {
        let dynamic = try Shell.run(["readelf", "-dW", Self.recorder])
        XCTAssertEqual(dynamic.status, 0, dynamic.stderr)
        XCTAssertFalse(dynamic.stdout.contains("(NEEDED)"), dynamic.stdout)
        let symbols = try Shell.run(["nm", "-D", "--defined-only", Self.recorder])
        let names = Set(
            symbols.stdout.split(separator: "\n").compactMap { $0.split(separator: " ").last }.map(String.init))
        XCTAssertEqual(
            Set(names.filter { $0.hasPrefix("la_") }), ["la_version", "la_objopen", "la_activity", "la_preinit"])
        let undefined = try Shell.run(["nm", "-D", "--undefined-only", Self.recorder])
        XCTAssertEqual(undefined.stdout, "")
    }

    /// 150 launches each of the C, C++ and Swift samples: one whole record per launch, with the
    /// required keys, ordered times, the loader's count of objects and readelf's build-id.
    func testHundredsOfLaunchesOfCCxxAndSwiftSamplesGiveOneCheckedRecordEach() throws {
        let programs = [
            try Samples.path("c-hello/c-hello"), try Samples.path("cxx-static-init/cxx-static-init"),
            try Samples.path("field-mark/field-mark-swift"),
        ]
        let spool = try TemporaryFolders.make("recorder-spool")
        let runs = 150
        for program in programs {
            let result = try Self.recorded(
                "for i in $(seq \(runs)); do \"\(program)\" >/dev/null || exit 1; done", spool: spool,
                environment: Self.noCosts)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let records = Self.spoolRecords(spool)
        XCTAssertEqual(Self.drops(spool), 0)
        for program in programs {
            let resolved = URL(fileURLWithPath: program).resolvingSymlinksInPath().path
            let launches = records.filter { $0.kind == "launch" && $0["exe"] == resolved }
            XCTAssertEqual(launches.count, runs, program)
            let objects = try Self.loadedObjects(program)
            let buildID = try Self.buildID(program)
            XCTAssertNotNil(buildID, program)
            for record in launches {
                for key in Self.launchKeys { XCTAssertNotNil(record[key], "\(key) missing: \(record.line)") }
                XCTAssertEqual(record["host"]?.count, 16)
                XCTAssertEqual(record["boot"]?.count, 16)
                XCTAssertEqual(record.number("uid"), UInt64(getuid()))
                XCTAssertEqual(record["t0src"], "schedstat", record.line)
                guard let t0 = record.number("t0"), let version = record.number("version"),
                    let consistent = record.number("consistent"), let main = record.number("main")
                else { return XCTFail("times missing: \(record.line)") }
                XCTAssertLessThanOrEqual(t0, version, record.line)
                XCTAssertLessThanOrEqual(version, consistent, record.line)
                XCTAssertLessThanOrEqual(consistent, main, record.line)
                XCTAssertEqual(record.number("objects"), UInt64(objects), record.line)
                let listed = record.values["o"] ?? []
                XCTAssertEqual(listed.count + Int(record.number("omitted") ?? 0), objects, record.line)
                for entry in listed {
                    let time = entry.split(separator: ",", maxSplits: 1).first.flatMap { UInt64($0) } ?? 0
                    XCTAssertTrue(version <= time && time <= consistent, record.line)
                }
                XCTAssertTrue(listed.contains { $0.hasSuffix(",linux-vdso.so.1") }, record.line)
                XCTAssertEqual(record["buildid"], buildID, record.line)
                XCTAssertEqual(record["arg0"], program, record.line)
            }
        }
        // The Swift sample marks "ready" after main at each launch.
        XCTAssertEqual(records.filter { $0.kind == "mark" && $0["name"] == "ready" }.count, runs)
    }

    /// 320 launches at once: exactly 320 whole records (one O_APPEND write each, none torn).
    func testConcurrentLaunchesGiveExactlyThatManyWholeRecords() throws {
        let program = try Samples.path("c-hello/c-hello")
        let spool = try TemporaryFolders.make("recorder-concurrent")
        let count = 500  // issue 33: 500 concurrent launches, 500 whole records
        let result = try Self.recorded(
            "for i in $(seq \(count)); do \"\(program)\" >/dev/null & done; wait", spool: spool)
        XCTAssertEqual(result.status, 0, result.stderr)
        // (seq, started by the same shell, has its own record)
        let records = Self.spoolRecords(spool).filter { $0["exe"] == program }
        XCTAssertEqual(records.count, count)
        XCTAssertEqual(Self.drops(spool), 0)
        for record in records {
            for key in Self.launchKeys { XCTAssertNotNil(record[key], "\(key) missing: \(record.line)") }
        }
        XCTAssertEqual(Set(records.compactMap { $0["pid"] }).count, count)
    }

    /// A spool at its bound drops each further record and counts it; what the program prints and
    /// its exit status do not change.
    func testAFullSpoolDropsAndCountsAndLeavesTheProgramAlone() throws {
        let program = try Samples.path("field-mark/field-mark")
        let spool = try TemporaryFolders.make("recorder-full")
        let runs = 10
        for _ in 0..<runs {
            let result = try Self.recorded(
                "\"\(program)\" 7", spool: spool, environment: ["PREMAIN_FIELD_MAX_BYTES": "1"])
            XCTAssertEqual(result.status, 7)
            XCTAssertEqual(result.stdout, "marked\n")
            XCTAssertEqual(result.stderr, "")
        }
        // The first launch finds the spool empty; everything after it (9 launches, 10 marks) is dropped.
        let records = Self.spoolRecords(spool)
        XCTAssertEqual(records.map(\.kind), ["launch"])
        XCTAssertEqual(Self.drops(spool), 2 * runs - 1)
    }

    func testAMissingSpoolFolderWritesNothingAndLeavesTheProgramAlone() throws {
        let program = try Samples.path("field-mark/field-mark")
        let spool = TemporaryFolders.path("recorder-missing")
        let result = try Self.recorded("\"\(program)\" 5", spool: spool)
        XCTAssertEqual(result.status, 5)
        XCTAssertEqual(result.stdout, "marked\n")
        XCTAssertEqual(result.stderr, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: spool))
    }

    /// The program's stdout and stderr are byte-identical with and without the recorder, and
    /// strace shows no write to descriptors 0-2 that the program itself does not make: the
    /// recorder's one write goes to the descriptor it opened on the spool.
    func testNoByteGoesToTheProgramsDescriptors() throws {
        let spool = try TemporaryFolders.make("recorder-descriptors")
        for program in [try Samples.path("c-hello/c-hello"), try Samples.path("cxx-static-init/cxx-static-init")] {
            var writes: [[String]] = []
            for recorder in [false, true] {
                let log = TemporaryFolders.path("recorder-strace")
                let result = try Self.recorded(
                    "strace -qq -o '\(log)' -e trace=openat,write -e signal=none -s 4096 \"\(program)\"", spool: spool,
                    environment: Self.noCosts, recorder: recorder)
                XCTAssertEqual(result.status, 0, result.stderr)
                let plain = try Self.recorded(
                    "\"\(program)\"", spool: spool, environment: Self.noCosts, recorder: false)
                XCTAssertEqual(result.stdout, plain.stdout)
                XCTAssertEqual(result.stderr, plain.stderr)
                let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
                writes.append(
                    lines.filter { $0.hasPrefix("write(0,") || $0.hasPrefix("write(1,") || $0.hasPrefix("write(2,") })
                guard recorder else { continue }
                let opened = lines.first { $0.contains(".records\"") && $0.hasPrefix("openat(") }
                let descriptor = try XCTUnwrap(opened?.split(separator: " ").last, lines.joined(separator: "\n"))
                let recordWrites = lines.filter { $0.contains("\"premain-record/1 ") }
                XCTAssertEqual(recordWrites.count, 1, lines.joined(separator: "\n"))
                XCTAssertTrue(recordWrites.first?.hasPrefix("write(\(descriptor), ") ?? false, "\(recordWrites)")
                XCTAssertFalse(["0", "1", "2"].contains(descriptor))
            }
            XCTAssertEqual(writes[0], writes[1], program)
        }
    }

    /// Programs the recorder cannot see leave no record (docs/recorder.md): a static executable,
    /// a setuid program (the loader ignores LD_AUDIT in secure mode) and an `env -i` child.
    func testStaticSetuidAndClearedEnvironmentProgramsLeaveNoRecord() throws {
        let spool = try TemporaryFolders.make("recorder-unseen")
        let hello = try Samples.path("c-hello/c-hello")
        let unseen = try Self.recorded(
            "\"\(try Samples.path("c-hello/c-hello-static"))\" && env -i \"\(hello)\"", spool: spool)
        XCTAssertEqual(unseen.status, 0, unseen.stderr)
        XCTAssertEqual(unseen.stdout, "hello\nhello\n")
        // env itself is a dynamic program and is recorded; the child it starts with nothing is not.
        XCTAssertEqual(Self.spoolRecords(spool).compactMap { $0["exe"] }, ["/usr/bin/env"])

        try XCTSkipIf(getuid() != 0, "a setuid copy owned by another user needs root to make")
        try XCTSkipIf(!FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "setpriv (util-linux) missing")
        let folder = try TemporaryFolders.make("recorder-setuid")
        let shared = folder + "/spool"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        chmod(folder, 0o755)
        chmod(shared, 0o1777)
        // The recorder too, so that the other user can read it wherever the build tree is.
        for (name, source, mode) in [
            ("hello-plain", hello, 0o755), ("hello-setuid", hello, 0o4755),
            ("libpremain-record.so", Self.recorder, 0o644),
        ] {
            try FileManager.default.copyItem(atPath: source, toPath: folder + "/" + name)
            chmod(folder + "/" + name, mode_t(mode))
        }
        let asNobody = "setpriv --reuid=65534 --regid=65534 --clear-groups"
        let result = try Self.recorded(
            "\(asNobody) '\(folder)/hello-plain' && \(asNobody) '\(folder)/hello-setuid'", spool: shared,
            audit: folder + "/libpremain-record.so")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "hello\nhello\n")
        // The plain copy run as the same user is recorded (so the spool was writable); the setuid one is not.
        let text = try String(contentsOfFile: shared + "/65534.records", encoding: .utf8)
        let exes = Self.records(text).compactMap { $0["exe"] }.filter { $0.hasPrefix(folder) }
        XCTAssertEqual(exes, [folder + "/hello-plain"])
    }

    /// `sh -c 'exec app'`: one process, two images, two records with the same pid, the shell's
    /// first; and a birth stamp naming that pid is taken exactly (t0src=env).
    func testAnExecChainGivesRecordsOfOnePidAndAStampNamingItIsExact() throws {
        let spool = try TemporaryFolders.make("recorder-exec")
        let program = try Samples.path("c-hello/c-hello")
        let stamp = Self.monotonicNow()
        let result = try Self.recorded(
            "/bin/sh -c 'export PREMAIN_T0=\(stamp):$$; exec \"$0\"' \"\(program)\"", spool: spool)
        XCTAssertEqual(result.status, 0, result.stderr)
        let records = Self.spoolRecords(spool)
        XCTAssertEqual(records.count, 2, records.map(\.line).joined(separator: "\n"))
        guard records.count == 2 else { return }
        XCTAssertEqual(records[0]["pid"], records[1]["pid"])
        // The path execve was given (AT_EXECFN), not the link's target (/usr/bin/dash).
        XCTAssertEqual(records[0]["exe"], "/bin/sh")
        XCTAssertEqual(records[1]["exe"], program)
        XCTAssertLessThan(records[0].number("main") ?? .max, records[1].number("version") ?? 0)
        XCTAssertNotEqual(records[0]["t0src"], "env")
        XCTAssertEqual(records[1]["t0src"], "env")
        XCTAssertEqual(records[1].number("t0"), stamp)
        XCTAssertNil(records[1]["env0"])
    }

    /// A program run by a relative path is named by the working folder and that path (without
    /// its "./"), read without /proc: `cd FOLDER && ./c-hello`, and `NAME/c-hello` from FOLDER's
    /// parent, both give FOLDER/c-hello (FOLDER as getcwd says it: links resolved).
    func testARelativeProgramPathIsMadeAbsoluteWithTheWorkingFolder() throws {
        let spool = try TemporaryFolders.make("recorder-relative")
        let program = try Samples.path("c-hello/c-hello")
        let folder = (program as NSString).deletingLastPathComponent
        let name = (folder as NSString).lastPathComponent
        let run = try Shell.run(
            [
                "bash", "-c",
                "export LD_AUDIT=\"$2\"; cd \"$0\" && ./c-hello >/dev/null && cd .. && \"$1\"/c-hello >/dev/null",
                folder, name, Self.recorder,
            ],
            environment: ["PREMAIN_FIELD_DIR": spool])
        XCTAssertEqual(run.status, 0, run.stderr)
        let records = Self.spoolRecords(spool)
        let real = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        XCTAssertEqual(records.map { $0["exe"] }, [real + "/c-hello", real + "/c-hello"])
    }

    /// PREMAIN_FIELD_HOST (the machine ID as `field env` and `field run` give it) is hashed as
    /// /etc/machine-id's text is, so a record's host is the same with or without it; a value that
    /// is not 32 hex digits is ignored and the file read.
    func testTheHostFromTheEnvironmentIsTheFilesHashAndAnythingElseIsIgnored() throws {
        let spool = try TemporaryFolders.make("recorder-host")
        let program = try Samples.path("c-hello/c-hello")
        let other = "0123456789abcdef0123456789abcdef"
        var hosts: [String?] = []
        for value in [nil, other, "not-a-machine-id", "0123456789ABCDEF0123456789ABCDEF"] as [String?] {
            let before = Self.spoolRecords(spool).count
            let result = try Self.recorded(
                "\"\(program)\" >/dev/null", spool: spool,
                environment: value.map { ["PREMAIN_FIELD_HOST": $0] } ?? [:])
            XCTAssertEqual(result.status, 0, result.stderr)
            let records = Self.spoolRecords(spool)
            XCTAssertEqual(records.count, before + 1)
            hosts.append(records.last?["host"])
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in other.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        XCTAssertEqual(hosts[1], String(hash, radix: 16).leftPadded(to: 16))
        XCTAssertNotEqual(hosts[0], hosts[1])
        XCTAssertEqual(hosts[2], hosts[0], "a malformed value is ignored")
        XCTAssertEqual(hosts[3], hosts[0], "upper case is not /etc/machine-id's form: ignored")
        if let id = try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8) {
            let result = try Self.recorded(
                "\"\(program)\" >/dev/null", spool: spool,
                environment: ["PREMAIN_FIELD_HOST": id.trimmingCharacters(in: .whitespacesAndNewlines)])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(Self.spoolRecords(spool).last?["host"], hosts[0], "the same hash as the file's")
        }
    }

    /// A birth stamp naming another pid (a child inheriting its parent's) is refused: env0=1,
    /// and the estimate is used instead.
    func testABirthStampOfAnotherPidIsRefused() throws {
        let spool = try TemporaryFolders.make("recorder-t0")
        let program = try Samples.path("c-hello/c-hello")
        let result = try Self.recorded(
            "\"\(program)\"", spool: spool, environment: ["PREMAIN_T0": "\(Self.monotonicNow()):1"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let records = Self.spoolRecords(spool)
        XCTAssertEqual(records.count, 1)
        XCTAssertEqual(records.first?["env0"], "1")
        XCTAssertEqual(records.first?["t0src"], "schedstat")
    }

    /// premain_mark("ready") writes a mark after main, joined to its launch by boot and pid;
    /// without the recorder it writes nothing.
    func testAMarkFollowsItsLaunchAndIsANoOpWithoutTheRecorder() throws {
        let spool = try TemporaryFolders.make("recorder-mark")
        let program = try Samples.path("field-mark/field-mark")
        let result = try Self.recorded("\"\(program)\"", spool: spool)
        XCTAssertEqual(result.status, 0, result.stderr)
        let records = Self.spoolRecords(spool)
        XCTAssertEqual(records.map(\.kind), ["launch", "mark"])
        guard records.count == 2 else { return }
        XCTAssertEqual(records[1]["name"], "ready")
        XCTAssertEqual(records[1]["pid"], records[0]["pid"])
        XCTAssertEqual(records[1]["boot"], records[0]["boot"])
        XCTAssertGreaterThan(records[1].number("t") ?? 0, records[0].number("main") ?? .max)

        let quiet = try TemporaryFolders.make("recorder-mark-off")
        let off = try Self.recorded("\"\(program)\"", spool: quiet, recorder: false)
        XCTAssertEqual(off.stdout, "marked\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: quiet), [])
    }
}

extension String {
    /// The string with leading zeros up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
