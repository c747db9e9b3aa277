import PremainTestSupport
import Testing

@testable import PremainField
@testable import PremainModel
@testable import PremainRender

/// Issue 35 item 5: a field report's rows named for the launches premain.json declares, the
/// way measure, compare and pr name their rows; matched by the program's file name and the
/// first argument, the two things the recorder keeps of a launch.
struct FieldLaunchTagsTests {
    static let launches = [
        DeclaredLaunch(name: "version", run: ["tool", "--version"], until: .firstOutput),
        DeclaredLaunch(name: "serve", run: [".build/release/tool", "serve", "--port", "0"], until: .main),
        DeclaredLaunch(name: "serve-verbose", run: ["tool", "serve", "-v"]),
        DeclaredLaunch(name: "bare", run: ["tool"]),
        DeclaredLaunch(name: "other", run: ["othertool", "--version"]),
    ]

    @Test func aRowMatchesByTheProgramsFileNameAndTheFirstArgument() {
        func tag(_ executable: String, _ scenario: String?) -> String? {
            FieldLaunchTags.launch(executable: executable, scenario: scenario, among: Self.launches)
        }
        #expect(tag("/usr/bin/tool", "--version") == "version")
        // The folder does not matter: artifacts are launched from a build folder, installed elsewhere.
        #expect(tag("/opt/app/bin/tool", "serve") == "serve")
        // Launches that differ only after the first argument look alike to the recorder: the first declared.
        #expect(tag("/usr/bin/tool", "serve") == "serve")
        #expect(tag("/usr/bin/tool", nil) == "bare")
        #expect(tag("/usr/bin/tool", "--help") == nil)
        #expect(tag("/usr/bin/tools", "--version") == nil)
        #expect(tag("/usr/bin/othertool", "--version") == "other")
        #expect(FieldLaunchTags.launch(executable: "/usr/bin/tool", scenario: "--version", among: []) == nil)
    }

    @Test func taggedRowsAreNamedInEveryFormatAndExport() throws {
        let report = FieldRenderingTests.report
        #expect(FieldLaunchTags.tag(report, launches: []) == report)
        let tagged = FieldLaunchTags.tag(report, launches: [DeclaredLaunch(name: "daemon", run: ["tool", "serve"])])
        #expect(tagged.rows.map(\.launch) == ["daemon", "daemon"])
        #expect(FieldTextRenderer.render(tagged).contains("daemon (serve)"))
        #expect(FieldMarkdownRenderer.render(tagged).contains(MarkdownEscape.text("daemon (serve)")))
        #expect(FieldHTMLRenderer.render(tagged).contains("/usr/bin/tool daemon (serve)"))
        #expect(!FieldTextRenderer.render(report).contains("daemon"))
        let json = try JSONRenderer.render(tagged)
        #expect(json.contains("\"launch\" : \"daemon\""))
        #expect(try JSONRenderer.decode(FieldReport.self, from: json) == tagged)
        let textfile = NodeExporterTextfile.render(FieldExportBuilder.export(tagged))
        #expect(textfile.contains("scenario=\"serve\",launch=\"daemon\",temperature=\"warm\""))
        #expect(!NodeExporterTextfile.render(FieldExportBuilder.export(report)).contains("launch="))
        // A launch named as its first argument is not said twice.
        let same = FieldLaunchTags.tag(report, launches: [DeclaredLaunch(name: "serve", run: ["tool", "serve"])])
        #expect(FieldFormat.scenario(same.rows[0]) == "serve")
    }
}
