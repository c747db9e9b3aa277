import PremainAudit
import PremainModel
import PremainSystem

#if canImport(Glibc)
import Glibc
#endif

/// The file mappings of a process, from `/proc/PID/maps`.
struct ProcessMaps {
    struct Mapping: Equatable {
        var start: UInt64
        var end: UInt64
        var offset: UInt64
        var path: String
    }

    var mappings: [Mapping]

    /// Reads `/proc/<pid>/maps`; `nil` when the process is gone.
    init?(pid: pid_t) {
        guard let text = LocalFiles.readText("/proc/\(pid)/maps", limit: 64 << 20) else { return nil }
        self.init(text: text)
    }

    /// Parses maps text; lines without a file path (anonymous, `[heap]`, `[vdso]`) are skipped.
    init(text: String) {
        var result: [Mapping] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let range = fields[0].split(separator: "-")
            let path = fields[5].trimmingLeadingSpaces
            guard range.count == 2, path.hasPrefix("/"), !path.hasSuffix(" (deleted)"),
                  let start = UInt64(range[0], radix: 16), let end = UInt64(range[1], radix: 16),
                  let offset = UInt64(fields[2], radix: 16) else { continue }
            result.append(Mapping(start: start, end: end, offset: offset, path: path))
        }
        mappings = result
    }

    /// Paths of mapped files in order of first appearance.
    var paths: [String] {
        var seen = Set<String>()
        return mappings.map(\.path).filter { seen.insert($0).inserted }
    }

    /// The load bias of `path` (runtime address minus link-time address), found from the
    /// mapping of the lowest file offset and the PT_LOAD that covers it. `nil` when the file is
    /// not mapped or no segment matches.
    func loadBias(of path: String, segments: [(virtualAddress: UInt64, offset: UInt64)]) -> UInt64? {
        let page: UInt64 = 4096
        guard let first = mappings.filter({ $0.path == path }).min(by: { $0.offset < $1.offset }) else { return nil }
        for segment in segments where segment.offset & ~(page - 1) == first.offset {
            return first.start &- (segment.virtualAddress & ~(page - 1))
        }
        return nil
    }
}

extension Substring {
    fileprivate var trimmingLeadingSpaces: String {
        String(drop(while: { $0 == " " }))
    }
}
