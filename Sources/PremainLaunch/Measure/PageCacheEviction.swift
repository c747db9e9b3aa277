import Glibc
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
    public static func objects(
        executable: String, interpreter: String?, glibcLoader: Bool,
        environment: [String], launcher: any Launcher
    ) -> [String] {
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
            environment: environment.filter { !$0.hasPrefix("LD_TRACE_LOADED_OBJECTS=") } + [
                "LD_TRACE_LOADED_OBJECTS=1"
            ],
            instrumented: false, timeoutSeconds: 10,
            output: .forward { stream, bytes in
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

/// Evicts files from the page cache before a cold launch and checks how much stayed.
///
/// For each file: `fdatasync` (dirty pages cannot be dropped), then
/// `posix_fadvise(POSIX_FADV_DONTNEED)` over the whole file, then `mincore` on a fresh
/// read-only mapping to count pages still resident. Pages mapped by running processes (libc,
/// the loader) stay resident: the kernel does not drop mapped pages.
public enum PageCacheEvictor {
    /// Residency of one file right after eviction.
    public struct Residency: Codable, Equatable, Sendable {
        public var path: String
        public var pages: Int
        public var residentPages: Int
        /// Why the file could not be evicted or checked; `nil` when it was.
        public var error: String?

        public init(path: String, pages: Int, residentPages: Int, error: String? = nil) {
            self.path = path
            self.pages = pages
            self.residentPages = residentPages
            self.error = error
        }
    }

    /// Evicts every file of `paths` and reports what stayed resident, in the same order.
    public static func evict(_ paths: [String]) -> [Residency] {
        paths.map(evictOne)
    }

    static func evictOne(_ path: String) -> Residency {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return Residency(
                path: path, pages: 0, residentPages: 0, error: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        _ = fdatasync(fd)
        let advice = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
        var result = count(fd: fd, path: path)
        if advice != 0 { result.error = "posix_fadvise: \(String(cString: strerror(advice)))" }
        return result
    }

    static func count(fd: Int32, path: String) -> Residency {
        guard let info = LocalFiles.status(descriptor: fd) else {
            return Residency(path: path, pages: 0, residentPages: 0, error: "cannot stat")
        }
        let size = Int(info.st_size)
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard size > 0, pageSize > 0 else { return Residency(path: path, pages: 0, residentPages: 0) }
        let pages = (size + pageSize - 1) / pageSize
        guard let mapping = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), mapping != MAP_FAILED else {
            return Residency(path: path, pages: pages, residentPages: 0, error: "cannot map to check residency")
        }
        defer { munmap(mapping, size) }
        var vector = [UInt8](repeating: 0, count: pages)
        guard mincore(mapping, size, &vector) == 0 else {
            return Residency(
                path: path, pages: pages, residentPages: 0, error: "mincore: \(String(cString: strerror(errno)))")
        }
        return Residency(path: path, pages: pages, residentPages: vector.filter { $0 & 1 != 0 }.count)
    }
}

/// Collects forwarded bytes from the launcher's consumer (called on the launching thread).
final class OutputCollector: @unchecked Sendable {
    private var bytes: [UInt8] = []

    func append(_ more: [UInt8]) { bytes.append(contentsOf: more) }

    var text: String { String(decoding: bytes, as: UTF8.self) }
}
