import PremainModel

#if canImport(Glibc)
    import Glibc
#endif

#if arch(x86_64)  // the ptrace engine knows x86-64 only (see `Tracer.isSupported`)
    /// The int3 bytes premain has written into one address space, with the byte each replaced.
    ///
    /// Memory is read and written a word at a time on word-aligned addresses, always from a fresh
    /// read, so two breakpoints inside one word (or a breakpoint next to a patched byte) never
    /// overwrite each other: each one puts back only its own byte.
    struct BreakpointTable {
        private(set) var originals: [UInt64: UInt8] = [:]

        /// The x86-64 one-byte breakpoint instruction.
        static let int3: UInt64 = 0xcc

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

    /// The few x86-64 instructions that start most functions, executed by premain on the stopped
    /// thread instead of single-stepping them with the breakpoint removed. No step means no window
    /// in which another thread could run past the removed breakpoint, and a cheaper stop.
    ///
    /// Handled: `endbr64`, `nop`, `push r64` (with and without REX.B), `mov %rsp,%rbp`. Anything else
    /// returns `nil` and is single-stepped.
    enum EntryInstruction {
        /// What executing the instruction does: the new registers and an 8-byte store, if any.
        struct Effect {
            var registers: user_regs_struct
            var store: (address: UInt64, value: UInt64)?
        }

        /// Executes the instruction in `bytes` (at least 4, taken at `registers.rip`). `nil` when
        /// the instruction is not one of those handled.
        static func execute(_ bytes: [UInt8], registers: user_regs_struct) -> Effect? {
            guard bytes.count >= 4 else { return nil }
            var regs = registers
            switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
            case (0xf3, 0x0f, 0x1e, 0xfa):  // endbr64
                regs.rip &+= 4
                return Effect(registers: regs, store: nil)
            case (0x90, _, _, _):  // nop
                regs.rip &+= 1
                return Effect(registers: regs, store: nil)
            case (0x48, 0x89, 0xe5, _):  // mov %rsp,%rbp
                regs.rbp = regs.rsp
                regs.rip &+= 3
                return Effect(registers: regs, store: nil)
            case (0x50...0x57, _, _, _):  // push %rax..%rdi
                return push(register: Int(bytes[0] - 0x50), length: 1, regs)
            case (0x41, 0x50...0x57, _, _):  // push %r8..%r15
                return push(register: Int(bytes[1] - 0x50) + 8, length: 2, regs)
            default:
                return nil
            }
        }

        private static func push(register: Int, length: UInt64, _ registers: user_regs_struct) -> Effect {
            var regs = registers
            let value: UInt64
            switch register {
            case 0: value = regs.rax
            case 1: value = regs.rcx
            case 2: value = regs.rdx
            case 3: value = regs.rbx
            case 4: value = regs.rsp
            case 5: value = regs.rbp
            case 6: value = regs.rsi
            case 7: value = regs.rdi
            case 8: value = regs.r8
            case 9: value = regs.r9
            case 10: value = regs.r10
            case 11: value = regs.r11
            case 12: value = regs.r12
            case 13: value = regs.r13
            case 14: value = regs.r14
            default: value = regs.r15
            }
            regs.rsp &-= 8
            regs.rip &+= length
            return Effect(registers: regs, store: (regs.rsp, value))
        }
    }
#endif
