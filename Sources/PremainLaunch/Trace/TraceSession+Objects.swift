import CTrace
import PremainAudit
import PremainModel
#if canImport(Glibc)
import Glibc
#endif

/// Objects as the loader maps them: plans placed at their load bias, memory kept in step.
extension TraceSession {
    func setUpImage(_ pid: pid_t) {
        executablePath = Self.readLink("/proc/\(pid)/exe") ?? configuration.executable
        refreshObjects(pid)
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Plants probes and markers in every newly mapped object.
    func refreshObjects(_ pid: pid_t) {
        guard let maps = ProcessMaps(pid: pid) else { return }
        for path in maps.paths where !planted.contains(path) {
            let isExecutable = path == executablePath
            guard let plan = planner.plan(for: path, isMainExecutable: isExecutable) else {
                planted.insert(path)
                continue
            }
            guard let bias = plan.isPositionIndependent ? maps.loadBias(of: path, segments: plan.loadSegments) : 0 else {
                continue  // Not fully mapped yet; try at the next loader stop.
            }
            planted.insert(path)
            untimed += plan.untimed
            for probe in plan.probes {
                let index = probes.count
                probes.append(RuntimeProbe(probe: probe, exits: Set(probe.exits.map { $0 &+ bias })))
                sites[probe.entry &+ bias, default: Site()].probes.append(index)
                for exit in probes[index].exits { sites[exit, default: Site()].exitOf.append(index) }
            }
            for (marker, addresses) in plan.markers {
                if marker == .main { mainFound = true }
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
