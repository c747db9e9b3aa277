import PremainAudit
import PremainModel

#if canImport(Glibc)
import Glibc
#endif

/// The int3 bytes premain has written into one address space, with the byte each replaced.
///
/// Memory is read and written a word at a time on word-aligned addresses, always from a fresh
/// read, so two breakpoints inside one word (or a breakpoint next to a patched byte) never
/// overwrite each other: each one puts back only its own byte.
struct BreakpointTable {
    private(set) var originals: [UInt64: UInt8] = [:]

    static let int3: UInt64 = 0xcc

    var count: Int { originals.count }
    var addresses: Dictionary<UInt64, UInt8>.Keys { originals.keys }

    func isInserted(_ address: UInt64) -> Bool { originals[address] != nil }

    /// Writes int3 at `address` through thread `pid`; nothing happens when it is already there.
    mutating func insert(_ address: UInt64, pid: pid_t) throws(PtraceError) {
        guard originals[address] == nil else { return }
        let (aligned, shift) = Self.split(address)
        let word = try Ptrace.peek(pid, aligned)
        originals[address] = UInt8(truncatingIfNeeded: word >> shift)
        let patched = (word & ~(0xff << shift)) | (Self.int3 << shift)
        do {
            try Ptrace.poke(pid, aligned, patched)
        } catch {
            originals[address] = nil
            throw error
        }
    }

    /// Puts the original byte back at `address`; nothing happens when no breakpoint is there.
    mutating func remove(_ address: UInt64, pid: pid_t) throws(PtraceError) {
        guard let byte = originals[address] else { return }
        originals[address] = nil
        try Self.write(byte, at: address, pid: pid)
    }

    /// Writes every original byte into another address space that holds a copy of this one
    /// (a forked child), leaving this table unchanged. Returns how many writes failed.
    @discardableResult
    func restoreCopy(in pid: pid_t) -> Int {
        var failed = 0
        for (address, byte) in originals {
            do { try Self.write(byte, at: address, pid: pid) } catch { failed += 1 }
        }
        return failed
    }

    /// Forgets everything without touching memory (after exec replaced the address space).
    mutating func forgetAll() { originals = [:] }

    private static func split(_ address: UInt64) -> (UInt64, UInt64) {
        let aligned = address & ~7
        return (aligned, (address - aligned) * 8)
    }

    private static func write(_ byte: UInt8, at address: UInt64, pid: pid_t) throws(PtraceError) {
        let (aligned, shift) = split(address)
        let word = try Ptrace.peek(pid, aligned)
        try Ptrace.poke(pid, aligned, (word & ~(0xff << shift)) | (UInt64(byte) << shift))
    }
}
