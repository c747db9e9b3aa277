/// One section header, decoded.
public struct ELFSection: Sendable, Hashable {
    public var index: Int
    public var name: String
    public var type: SectionType
    public var flags: UInt64
    public var address: UInt64
    public var offset: UInt64
    public var size: UInt64
    public var link: UInt32
    public var info: UInt32
    public var entrySize: UInt64

    public static let flagWrite: UInt64 = 0x1
    public static let flagAlloc: UInt64 = 0x2
    public static let flagExec: UInt64 = 0x4
    /// `SHF_TLS`: a thread-local section (its bytes are a template, not mapped data).
    public static let flagTLS: UInt64 = 0x400

    public var isAllocated: Bool { flags & Self.flagAlloc != 0 }
    /// `true` when the section occupies bytes in the file (not `SHT_NOBITS`, not empty).
    public var hasFileBytes: Bool { type != .nobits && type != .null && size > 0 }
}

/// One program header, decoded.
public struct ELFSegment: Sendable, Hashable {
    public var type: UInt32
    public var flags: UInt32
    public var offset: UInt64
    public var virtualAddress: UInt64
    public var fileSize: UInt64
    public var memorySize: UInt64

    public static let load: UInt32 = 1
    public static let dynamic: UInt32 = 2
    public static let interp: UInt32 = 3
    public static let note: UInt32 = 4
    public static let tls: UInt32 = 7
    public static let gnuRelro: UInt32 = 0x6474_e552

    public static let flagExecute: UInt32 = 1
    public static let flagWrite: UInt32 = 2
    public static let flagRead: UInt32 = 4

    /// The file offset that holds virtual address `address`, when this segment maps it from
    /// the file.
    public func fileOffset(of address: UInt64) -> UInt64? {
        guard address >= virtualAddress else { return nil }
        let delta = address - virtualAddress
        guard delta < fileSize else { return nil }
        let (sum, overflow) = offset.addingReportingOverflow(delta)
        return overflow ? nil : sum
    }
}
