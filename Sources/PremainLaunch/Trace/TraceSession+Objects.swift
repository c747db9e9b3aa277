import CTrace
import PremainModel
import PremainSystem

#if canImport(Glibc)
    import Glibc
#endif

#if arch(x86_64)  // the ptrace engine knows x86-64 only (see `Tracer.isSupported`)
    /// Objects as the loader maps them: plans placed at their load bias, memory kept in step.
    extension TraceSession {
        func setUpImage(_ pid: pid_t) {
            executablePath = Self.readLink("/proc/\(pid)/exe") ?? executable
            refreshObjects(pid)
        }

        static func readLink(_ path: String) -> String? { LocalFiles.linkTarget(path) }

        /// Plants probes and markers in every newly mapped object.
        func refreshObjects(_ pid: pid_t) {
            guard let maps = ProcessMaps(pid: pid) else { return }
            for path in maps.paths where !planted.contains(path) {
                let isExecutable = path == executablePath
                guard let plan = planner.plan(for: path, isMainExecutable: isExecutable) else {
                    planted.insert(path)
                    continue
                }
                guard let bias = plan.isPositionIndependent ? maps.loadBias(of: path, segments: plan.loadSegments) : 0
                else {
                    continue  // Not fully mapped yet; try at the next loader stop.
                }
                planted.insert(path)
                untimed += plan.untimed
                for probe in plan.probes {
                    let index = probes.count
                    probes.append(RuntimeProbe(probe: probe, exits: Set(probe.exits.map { $0 &+ bias }), image: image))
                    sites[probe.entry &+ bias, default: Site()].probes.append(index)
                    for exit in probes[index].exits { sites[exit, default: Site()].exitOf.append(index) }
                }
                for (marker, addresses) in plan.markers {
                    if marker == .main { mainFound = true }
                    if marker == .until, !addresses.isEmpty { untilPlanted = true }
                    if marker == .write, milestones["firstOutput"] != nil { continue }
                    for address in addresses { sites[address &+ bias, default: Site()].markers.insert(marker) }
                }
                var failed = 0
                for probe in plan.probes {
                    if !sync(probe.entry &+ bias, pid) { failed += 1 }
                    for exit in probe.exits { _ = sync(exit &+ bias, pid) }
                }
                for address in plan.markers.values.joined() { _ = sync(address &+ bias, pid) }
                if failed > 0 { notes.append("\(failed) functions of \(path) could not be patched") }
            }
        }

        /// Makes memory agree with the site at `address`: int3 when it has a role, the original
        /// byte otherwise. Returns `false` when memory could not be written.
        @discardableResult
        func sync(_ address: UInt64, _ pid: pid_t) -> Bool {
            guard let site = sites[address], !site.isEmpty else {
                sites[address] = nil
                do { try table.remove(address, pid: pid) } catch { return false }
                return true
            }
            do {
                try table.insert(address, pid: pid)
                everInserted.insert(address)
                return true
            } catch {
                sites[address] = nil
                return false
            }
        }
    }
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
            // The kernel writes a newline in a path as "\012" (seq_path escapes it).
            let path = fields[5].trimmingLeadingSpaces.replacingOccurrences(of: "\\012", with: "\n")
            guard range.count == 2, path.hasPrefix("/"), !path.hasSuffix(" (deleted)"),
                let start = UInt64(range[0], radix: 16), let end = UInt64(range[1], radix: 16),
                let offset = UInt64(fields[2], radix: 16)
            else { continue }
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

extension String {
    /// Every `target` replaced by `replacement` (without Foundation).
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let found = rest.firstRange(of: target) {
            result += rest[..<found.lowerBound] + replacement
            rest = rest[found.upperBound...]
        }
        return result + rest
    }
}
