/// The files a cold launch must evict: the executable, its loader and every object the loader
/// maps at start-up, as glibc's loader itself lists them with `LD_TRACE_LOADED_OBJECTS=1` (what
/// `ldd` does: the loader resolves and maps the closure, prints it, and exits before any
/// initializer runs).
public enum LoadedObjectDiscovery {
    /// The paths, executable first. Only the executable when `glibcLoader` is false: for other
    /// programs `LD_TRACE_LOADED_OBJECTS` would simply run them.
    public static func objects(executable: String, interpreter: String?, glibcLoader: Bool,
                               environment: [String], launcher: any Launcher) -> [String] {
        var paths = [executable]
        if let interpreter { paths.append(interpreter) }
        guard glibcLoader else { return paths }
        let collected = OutputCollector()
        let request = LaunchRequest(
            executablePath: executable, arguments: [executable],
            environment: environment.filter { !$0.hasPrefix("LD_TRACE_LOADED_OBJECTS=") } + ["LD_TRACE_LOADED_OBJECTS=1"],
            instrumented: false, timeoutSeconds: 10, output: .forward { stream, bytes in
                if stream == .stdout { collected.append(bytes) }
            })
        guard let sample = try? launcher.launch(request), sample.outcome.succeeded else { return paths }
        for path in parse(collected.text) where !paths.contains(path) {
            paths.append(path)
        }
        return paths
    }

    /// Paths from `ldd`-style lines: `"libx.so => /path/libx.so (0x…)"` and
    /// `"/lib64/ld-linux-x86-64.so.2 (0x…)"`; "not found" and the vDSO are skipped.
    public static func parse(_ text: String) -> [String] {
        var paths: [String] = []
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingBlanks()
            var candidate: Substring
            if let arrow = line.firstRange(of: "=> ") {
                candidate = line[arrow.upperBound...]
            } else {
                candidate = line
            }
            if let paren = candidate.firstRange(of: " (") { candidate = candidate[..<paren.lowerBound] }
            if candidate.hasPrefix("/") { paths.append(String(candidate)) }
        }
        return paths
    }
}
