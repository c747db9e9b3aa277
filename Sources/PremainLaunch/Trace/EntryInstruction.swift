import PremainAudit
import PremainModel

#if canImport(Glibc)
import Glibc
#endif

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
