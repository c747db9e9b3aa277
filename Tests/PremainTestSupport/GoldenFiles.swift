import Foundation

/// Golden files of the renderers in Tests/Golden: `PREMAIN_UPDATE_GOLDEN=1 swift test`
/// rewrites them; review the diff before committing.
public enum GoldenFiles {
    /// `nil` when `text` equals the golden file `name` (or the file was just rewritten), else
    /// what to tell the reader.
    public static func mismatch(_ name: String, _ text: String) throws -> String? {
        let path = Repository.root + "/Tests/Golden/" + name
        if ProcessInfo.processInfo.environment["PREMAIN_UPDATE_GOLDEN"] == "1" {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return nil
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        guard text != expected else { return nil }
        let got = text.split(separator: "\n", omittingEmptySubsequences: false)
        let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let line = Array(zip(got, want)).firstIndex { $0.0 != $0.1 } ?? min(got.count, want.count)
        let gotLine = line < got.count ? String(got[line]) : "<end>"
        let wantLine = line < want.count ? String(want[line]) : "<end>"
        return
            "\(name) differs from its golden file at line \(line + 1):\n  got:  \(gotLine)\n  want: \(wantLine)\nPREMAIN_UPDATE_GOLDEN=1 rewrites it"
    }
}
