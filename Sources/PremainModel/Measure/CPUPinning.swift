/// Which CPUs the measuring thread and the target run on. With two or more allowed CPUs they
/// get different ones, so the measurer is never queued behind the target and stamps loader
/// lines as they arrive (unpinned, the first lines arrived up to 4 ms late on the prototype).
public struct CPUPinning: Codable, Equatable, Sendable {
    /// True when both were pinned.
    public var pinned: Bool
    public var measurerCPU: Int?
    public var targetCPU: Int?
    /// Why there is no pinning, when there is none.
    public var reason: String?

    public init(pinned: Bool, measurerCPU: Int?, targetCPU: Int?, reason: String?) {
        self.pinned = pinned
        self.measurerCPU = measurerCPU
        self.targetCPU = targetCPU
        self.reason = reason
    }

    /// The plan for this machine: the last allowed CPU for the target, the one before it for
    /// the measurer; no pinning with fewer than two CPUs or when `requested` is false.
    public static func plan(requested: Bool, allowed: [Int]) -> CPUPinning {
        guard requested else {
            return CPUPinning(pinned: false, measurerCPU: nil, targetCPU: nil, reason: "disabled with --no-pin")
        }
        guard allowed.count >= 2 else {
            return CPUPinning(pinned: false, measurerCPU: nil, targetCPU: nil,
                              reason: "only \(allowed.count) CPU allowed; measurer and target share it")
        }
        return CPUPinning(pinned: true, measurerCPU: allowed[allowed.count - 2],
                          targetCPU: allowed[allowed.count - 1], reason: nil)
    }

}
