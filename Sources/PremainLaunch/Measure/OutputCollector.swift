import PremainAudit
import PremainModel

/// Collects forwarded bytes from the launcher's consumer (called on the launching thread).
final class OutputCollector: @unchecked Sendable {
    private var bytes: [UInt8] = []

    func append(_ more: [UInt8]) { bytes.append(contentsOf: more) }

    var text: String { String(decoding: bytes, as: UTF8.self) }
}
