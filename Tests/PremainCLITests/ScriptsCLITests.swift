import Foundation
import PremainTestSupport
import Testing

/// The scripts a new user runs first (issue 36).
struct ScriptsCLITests {
    /// Item 3: `scripts/build-samples samples` (the README's `samples/…` paths invite it) deleted
    /// samples/c-hello/hello.c and failed. A destination inside the sources is refused before
    /// anything is made or deleted, by build-rule-samples too.
    @Test func buildSamplesRefusesADestinationInsideTheSources() throws {
        let root = Repository.root
        let source = root + "/samples/c-hello/hello.c"
        let before = try Data(contentsOf: URL(fileURLWithPath: source))
        for (script, destination) in [
            ("build-samples", "samples"), ("build-samples", "samples/c-hello/out"),
            ("build-samples", "./samples/../samples"),
            ("build-rule-samples", "samples"),
        ] {
            let result = try Shell.run(["bash", root + "/scripts/" + script, destination], in: root)
            #expect(result.status == 1, "\(script) \(destination): \(result.stderr)")
            #expect(result.stderr.contains("is inside the samples' sources"), "\(result.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: source)) == before)
        #expect(!FileManager.default.fileExists(atPath: root + "/samples/c-hello/out"))
        #expect(FileManager.default.fileExists(atPath: root + "/samples/rules"))
    }
}
