/// What the loader does for a dynamic relocation, which is what it costs at start-up.
public enum RelocationClass: String, Sendable, Codable, CaseIterable {
    /// Base address plus addend, no symbol look-up (`R_*_RELATIVE`, and every RELR address).
    case relative
    /// A PLT slot (`JUMP_SLOT`): bound lazily unless BIND_NOW.
    case plt
    /// `R_*_COPY`: data copied from a shared library into the executable.
    case copy
    /// `R_*_IRELATIVE`: an ifunc resolver is called at start-up.
    case irelative
    /// Thread-local storage: DTPMOD, DTPOFF/DTPREL, TPOFF/TPREL, TLSDESC.
    case tls
    /// Every other relocation: a symbol look-up and a write (`GLOB_DAT`, `R_*_64`, ...).
    case symbolic
    /// `R_*_NONE`: applied by nobody, counted apart.
    case none
}

extension ELFMachine {
    /// The class of relocation `type` naming symbol `symbolIndex`: as `relocationClass(_:)`,
    /// but MIPS, which has no `RELATIVE` type, relocates by the load address with
    /// `R_MIPS_REL32` (and its ELF64 compound `REL32`/`64`) against symbol 0.
    public func relocationClass(_ type: UInt32, symbolIndex: UInt32) -> RelocationClass {
        if self == .mips, type == 3, symbolIndex == 0 { return .relative }
        return relocationClass(type)
    }

    /// The class of relocation `type` on this machine; on a machine this reader does not know,
    /// every relocation but type 0 is `symbolic`. MIPS `R_MIPS_REL32` is `symbolic` here
    /// (it is `relative` against symbol 0: `relocationClass(_:symbolIndex:)`).
    public func relocationClass(_ type: UInt32) -> RelocationClass {
        switch self {
        case .x86_64:
            switch type {
            case 0: .none
            case 5: .copy
            case 7: .plt
            case 8, 38: .relative  // R_X86_64_RELATIVE, R_X86_64_RELATIVE64
            case 16, 17, 18, 21, 23, 36: .tls  // DTPMOD64 DTPOFF64 TPOFF64 DTPOFF32 TPOFF32 TLSDESC
            case 37: .irelative
            default: .symbolic
            }
        case .i386:
            switch type {
            case 0: .none
            case 5: .copy
            case 7: .plt
            case 8: .relative
            case 14, 15, 16, 17, 18, 19, 32, 33, 34, 35, 36, 37, 41: .tls
            case 42: .irelative
            default: .symbolic
            }
        case .aarch64:
            switch type {
            case 0, 256: .none
            case 1024: .copy
            case 1026: .plt
            case 1027: .relative
            case 1028, 1029, 1030, 1031: .tls  // TLS_DTPMOD TLS_DTPREL TLS_TPREL TLSDESC
            case 1032: .irelative
            default: .symbolic
            }
        case .arm:
            switch type {
            case 0: .none
            case 20: .copy
            case 22: .plt
            case 23: .relative
            case 13, 17, 18, 19: .tls  // TLS_DESC TLS_DTPMOD32 TLS_DTPOFF32 TLS_TPOFF32
            case 160: .irelative
            default: .symbolic
            }
        case .riscv:
            switch type {
            case 0: .none
            case 3: .relative
            case 4: .copy
            case 5: .plt
            case 6, 7, 8, 9, 10, 11, 12: .tls  // DTPMOD32/64 DTPREL32/64 TPREL32/64 TLSDESC
            case 58: .irelative
            default: .symbolic
            }
        case .ppc64, .ppc:
            switch type {
            case 0: .none
            case 19: .copy
            case 21: .plt
            case 22: .relative
            case 67...112: .tls  // R_PPC64_TLS .. TPREL16_HIGHESTA, DTPMOD64, TPREL64, DTPREL64
            case 248: .irelative
            default: .symbolic
            }
        case .s390:
            switch type {
            case 0: .none
            case 9: .copy
            case 11: .plt
            case 12: .relative
            case 37...56: .tls  // TLS_LOAD .. TLS_TPOFF
            case 61: .irelative
            default: .symbolic
            }
        case .mips:
            switch type {
            case 0: .none
            case 126: .copy  // R_MIPS_COPY
            case 127: .plt  // R_MIPS_JUMP_SLOT
            case 38, 39, 40, 41, 47, 48: .tls  // TLS_DTPMOD32/DTPREL32/DTPMOD64/DTPREL64/TPREL32/TPREL64
            default: .symbolic
            }
        case .sparcv9, .sparc, .sparc32plus:
            switch type {
            case 0: .none
            case 19: .copy  // R_SPARC_COPY
            case 21: .plt  // R_SPARC_JMP_SLOT
            case 22: .relative  // R_SPARC_RELATIVE
            case 74...79: .tls  // TLS_DTPMOD32/64, TLS_DTPOFF32/64, TLS_TPOFF32/64
            case 248, 249: .irelative  // R_SPARC_JMP_IREL, R_SPARC_IRELATIVE
            default: .symbolic
            }
        case .loongarch:
            switch type {
            case 0: .none
            case 3: .relative  // R_LARCH_RELATIVE
            case 4: .copy
            case 5: .plt  // R_LARCH_JUMP_SLOT
            case 6...11, 13, 14: .tls  // TLS_DTPMOD32/64, DTPREL32/64, TPREL32/64, TLS_DESC32/64
            case 12: .irelative
            default: .symbolic
            }
        default:
            type == 0 ? .none : .symbolic
        }
    }
}
