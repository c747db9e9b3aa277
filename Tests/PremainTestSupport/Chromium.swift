import Foundation

/// Headless Chromium (Debian's `chromium`) for screenshots of the HTML reports. The tests say
/// so and skip the screenshots when it is not installed (`apt-get install chromium`, or
/// `PREMAIN_SETUP_CHROMIUM=1 scripts/setup`); what the page references is checked without it.
public enum Chromium {
    /// The browser found on PATH (`chromium`, `chromium-browser`, `google-chrome`); `nil` when none.
    public static let path: String? = {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(
            String.init)
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for folder in folders where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
                return folder + "/" + name
            }
        }
        return nil
    }()

    /// Writes a PNG of the page `html` (a file) `width` × `height` CSS pixels to `png`, offline
    /// (no network, no component updates, a throw-away profile). Throws when the browser fails.
    public static func screenshot(_ html: String, to png: String, width: Int = 1500, height: Int = 1400) throws {
        guard let path else { throw ShellFailure(message: "chromium is not installed") }
        let profile = TemporaryFolders.root + "/premain-chromium-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let result = try Shell.run([
            path, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--force-device-scale-factor=1",
            "--user-data-dir=" + profile, "--window-size=\(width),\(height)", "--screenshot=" + png,
            URL(fileURLWithPath: html).absoluteString,
        ])
        guard FileManager.default.fileExists(atPath: png) else {
            throw ShellFailure(
                message: "chromium wrote no screenshot (status \(result.status)): \(result.stderr.suffix(500))")
        }
    }

    public struct ShellFailure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        public init(message: String) {
            self.message = message
        }
    }
}

/// Where tests leave files for people to look at (screenshots): `$PREMAIN_TEST_OUTPUT`, else
/// `.build/test-output` in the checkout; created on first use.
public enum TestOutput {
    public static func folder(_ name: String) -> String {
        let base = ProcessInfo.processInfo.environment["PREMAIN_TEST_OUTPUT"] ?? Repository.root + "/.build/test-output"
        let folder = base + "/" + name
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}
