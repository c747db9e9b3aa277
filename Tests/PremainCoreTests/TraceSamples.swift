import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import PremainCore

/// Builds, once per test run, the samples the trace tests need (from samples/ with gcc, g++
/// and swiftc) and a tiny calibration program. A missing compiler is a test failure.
enum TraceSamples {
    static let repository: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path
    }()

    struct Built: Sendable {
        var directory: String
        var failure: String?
        func path(_ relative: String) -> String { "\(directory)/\(relative)" }
    }

    static let built: Built = build()

    static func shell(_ command: String) -> Int32 {
        let status = system(command)
        return status == -1 ? -1 : (status >> 8) & 0xff
    }

    private static func build() -> Built {
        var template = Array("/tmp/premain-trace-tests-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { buffer -> String in
            guard let result = mkdtemp(buffer.baseAddress!) else { return "/tmp/premain-trace-tests" }
            return String(cString: result)
        }
        let samples = "\(repository)/samples"
        let swiftc = access("/opt/swift/usr/bin/swiftc", X_OK) == 0 ? "/opt/swift/usr/bin/swiftc" : "swiftc"
        let script = """
        set -e
        cd '\(directory)'
        mkdir -p cxx-static-init swift-startup faults
        C="-O1 -g -Wall -I\(samples)/common"
        gcc $C -fPIC -c \(samples)/cxx-static-init/ctor_c.c -o ctor_c.o
        g++ $C -fPIC -shared \(samples)/cxx-static-init/registry.cpp \(samples)/cxx-static-init/plugins.cpp ctor_c.o -Wl,-soname,libinit.so -o cxx-static-init/libinit.so
        g++ $C \(samples)/cxx-static-init/main.cpp -Lcxx-static-init -linit -Wl,--enable-new-dtags,-rpath,'$ORIGIN' -o cxx-static-init/cxx-static-init
        \(swiftc) -Onone -g -parse-as-library -module-name SwiftStartup \(samples)/swift-startup/main.swift -o swift-startup/swift-startup
        \(swiftc) -O -g -parse-as-library -module-name SwiftStartup \(samples)/swift-startup/main.swift -o swift-startup/swift-startup-O
        gcc $C \(samples)/faults/crash-in-init.c -o faults/crash-in-init
        gcc $C -pthread \(samples)/faults/spawn-threads.c -o faults/spawn-threads
        gcc $C \(samples)/faults/forks-child.c -o faults/forks-child
        gcc $C -DFORK_IN_CONSTRUCTOR \(samples)/faults/forks-child.c -o faults/forks-in-init
        printf '%s\\n' '#include <stdlib.h>' \\
          '__attribute__((noinline)) void premain_calibration_empty(void) { __asm__ volatile(""); }' \\
          'int main(int argc, char **argv) { int n = argc > 1 ? atoi(argv[1]) : 200; for (int i = 0; i < n; i++) premain_calibration_empty(); return 0; }' > calibrate.c
        gcc -O1 -g calibrate.c -o calibrate
        rm -f ctor_c.o
        """
        let status = shell("/bin/sh -c \"$(cat <<'PREMAIN_EOF'\n\(script)\nPREMAIN_EOF\n)\" > '\(directory)/build.log' 2>&1")
        return Built(directory: directory, failure: status == 0 ? nil : "building samples failed (\(status)), see \(directory)/build.log")
    }

    static var calibration: CalibrationTarget {
        CalibrationTarget(executable: built.path("calibrate"), arguments: ["calibrate", "300"],
                          symbol: "premain_calibration_empty", calls: 300)
    }

    static var environment: [String] {
        var result: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            result.append(String(cString: entry))
            pointer += 1
        }
        return result
    }

    /// Parses a self-timing log: id → durations in ms, in order.
    static func selfTimes(_ path: String) -> [String: [Double]] {
        guard let text = FileManagerLite.readText(path) else { return [:] }
        var result: [String: [Double]] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 4, let start = UInt64(fields[1]), let end = UInt64(fields[2]) else { continue }
            result[String(fields[0]), default: []].append(Double(end - start) / 1e6)
        }
        return result
    }

    /// Every process whose process group is `group` (scans /proc).
    static func processes(inGroup group: pid_t) -> [pid_t] {
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var found: [pid_t] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = pid_t(name), let stat = FileManagerLite.readText("/proc/\(pid)/stat"),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 3, pid_t(fields[3]) == group { found.append(pid) }
        }
        return found
    }
}

extension TraceSamples {
    /// Processes still running a program from the samples folder, or stopped under ptrace by
    /// this test process (scans /proc). Empty when the tracer cleaned up.
    static func leftovers() -> [String] {
        guard let dir = opendir("/proc") else { return ["cannot read /proc"] }
        defer { closedir(dir) }
        let me = getpid()
        var found: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = pid_t(name), pid != me else { continue }
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
            let exe = count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
            let status = FileManagerLite.readText("/proc/\(pid)/status") ?? ""
            let tracer = status.split(separator: "\n").first { $0.hasPrefix("TracerPid:") }?
                .split(separator: "\t").last.map(String.init) ?? "0"
            if exe.hasPrefix(built.directory) || tracer == String(me) {
                found.append("\(pid) \(exe) tracer \(tracer)")
            }
        }
        return found
    }
}
