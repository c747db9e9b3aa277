import PremainAudit
import PremainModel
import PremainSystem

/// The files a cold launch must evict: the executable, its loader and every object the loader
/// maps at start-up, as glibc's loader itself lists them with `LD_TRACE_LOADED_OBJECTS=1` (what
/// `ldd` does: the loader resolves and maps the closure, prints it, and exits before any
/// initializer runs, honouring the environment's LD_LIBRARY_PATH and LD_PRELOAD), joined with
/// what `ClosureResolver` finds statically (which still lists the objects that were found when
/// one is missing). Paths are made real (symbolic links resolved) and listed once.
public enum LoadedObjectDiscovery {
    /// The real paths, executable first. Without glibc's loader only the executable, its
    /// interpreter and the static closure: `LD_TRACE_LOADED_OBJECTS` would simply run it.
    public static func objects(executable: String, interpreter: String?, glibcLoader: Bool,
                               environment: [String], launcher: any Launcher) -> [String] {
        var candidates = [executable]
        if let interpreter { candidates.append(interpreter) }
        if glibcLoader { candidates += traced(executable: executable, environment: environment, launcher: launcher) }
        if let closure = try? ClosureResolver().resolve(path: executable) {
            candidates += closure.objects.map(\.realPath)
        }
        var seen: Set<String> = []
        return candidates.map { LocalFiles.realPath($0) ?? $0 }.filter { seen.insert($0).inserted }
    }

    /// What the loader lists under `LD_TRACE_LOADED_OBJECTS=1`; `[]` when the launch fails.
    static func traced(executable: String, environment: [String], launcher: any Launcher) -> [String] {
        let collected = OutputCollector()
        let request = LaunchRequest(
            executablePath: executable, arguments: [executable],
            environment: environment.filter { !$0.hasPrefix("LD_TRACE_LOADED_OBJECTS=") } + ["LD_TRACE_LOADED_OBJECTS=1"],
            instrumented: false, timeoutSeconds: 10, output: .forward { stream, bytes in
                if stream == .stdout { collected.append(bytes) }
            })
        // A missing library makes the loader fail after listing the others: keep those.
        guard (try? launcher.launch(request)) != nil else { return [] }
        return parse(collected.text)
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
