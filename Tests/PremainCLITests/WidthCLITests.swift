import Foundation
import PremainTestSupport
import Testing

/// Text output fits COLUMNS (or 100) without cutting names; --wide shortens nothing.
@Suite struct WidthCLITests {
    static let swiftSample = Result { try Samples.path("swift-startup/swift-startup") }

    @Test(arguments: ["60", "100", "140"])
    func auditFitsColumnsWithoutCuttingNames(columns: String) throws {
        let path = try Self.swiftSample.get()
        let result = try CLI.run(["audit", path], environment: ["COLUMNS": columns])
        #expect(result.status == 0, "\(result.stderr)")
        let width = Int(columns) ?? 100
        // From 100 columns on, lines longer than the width hold an unbreakable word (a path);
        // narrower, a table whose file names cannot shrink may run over, but nothing is cut.
        if width >= 100 {
            for line in result.stdout.split(separator: "\n") where line.count > width && line.hasPrefix(" ") {
                #expect(line.split(separator: " ").contains { $0.count > width / 4 }, "line over \(width): \(line)")
            }
        }
        let json = try CLI.run(["audit", "--format", "json", path]).stdout
        let binary = try #require(
            ((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["binaries"]
                as? [[String: Any]])?.first)
        for name in binary["needed"] as? [String] ?? [] {
            #expect(result.stdout.contains(name), "\(name) cut at \(columns)")
        }
        let suspects = (binary["swift"] as? [String: Any])?["lazyGlobals"] as? [[String: Any]] ?? []
        for suspect in suspects {
            let demangled = try #require(suspect["demangled"] as? String)
            let variable = String(demangled.dropFirst("one-time initialization function for ".count))
            #expect(result.stdout.contains(variable), "\(variable) cut at \(columns)")
        }
        #expect(
            !result.stdout.contains("…") || result.stdout.contains("…/") || result.stdout.contains("…and"),
            "an ellipsis that is not a dropped directory prefix")
        #expect(result.stdout.contains("lazy global: SwiftStartup.homeCatalog"))
        #expect(result.stdout.contains("linked by gold"))
        #expect(result.stdout.contains("\n  ELF64 little-endian"), "the header line keeps its indent")
    }

    @Test func wideKeepsEveryPathAndName() throws {
        let path = try Self.swiftSample.get()
        let narrow = try CLI.run(["audit", path], environment: ["COLUMNS": "60"])
        let wide = try CLI.run(["audit", "--wide", path], environment: ["COLUMNS": "40"])
        #expect(wide.status == 0)
        #expect(!wide.stdout.contains("…/"))
        #expect(narrow.stdout.contains("…/"))
        // Every dependency's full path is on one line in the wide output.
        let closure = try CLI.run(["audit", "--format", "json", path]).stdout
        let report = try JSONSerialization.jsonObject(with: Data(closure.utf8)) as? [String: Any]
        let binaries = report?["binaries"] as? [[String: Any]]
        let objects = (binaries?.first?["closure"] as? [String: Any])?["objects"] as? [[String: Any]] ?? []
        for object in objects where (object["system"] as? Bool) == false {
            let objectPath = try #require(object["path"] as? String)
            #expect(wide.stdout.contains(objectPath), "\(objectPath)")
        }
    }

    @Test func checkAndDiffTakeWide() throws {
        let path = try Self.swiftSample.get()
        for command in [
            ["check", "--no-config", "--fail-on", "never", "--wide", path],
            ["check", "--no-config", "--fail-on", "never", path],
        ] {
            let result = try CLI.run(command, environment: ["COLUMNS": "50"])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            if !command.contains("--wide") {
                #expect(
                    result.stdout.split(separator: "\n").allSatisfy { line in
                        line.count <= 50 || line.split(separator: " ").contains { $0.count > 20 }
                    })
            }
        }
        for sub in ["diff", "measure", "trace"] {
            #expect(try CLI.run([sub, "--help"]).stdout.contains("--wide"), "\(sub)")
        }
    }
}
