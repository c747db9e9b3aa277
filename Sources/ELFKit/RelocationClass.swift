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
        // Each machine's table used in place (a copy of the table would retain its arrays at
        // every call: this runs for every relocation of some scans).
        switch self {
        case .x86_64: RelocationTypes.x86_64.relocationClass(type)
        case .i386: RelocationTypes.i386.relocationClass(type)
        case .aarch64: RelocationTypes.aarch64.relocationClass(type)
        case .arm: RelocationTypes.arm.relocationClass(type)
        case .riscv: RelocationTypes.riscv.relocationClass(type)
        case .ppc64, .ppc: RelocationTypes.ppc.relocationClass(type)
        case .s390: RelocationTypes.s390.relocationClass(type)
        case .mips: RelocationTypes.mips.relocationClass(type)
        case .sparcv9, .sparc, .sparc32plus: RelocationTypes.sparc.relocationClass(type)
        case .loongarch: RelocationTypes.loongarch.relocationClass(type)
        default: type == 0 ? .none : .symbolic
        }
    }
}

/// A machine's relocation types that are not a symbol look-up: what `R_*_NONE`, `COPY`,
/// `JUMP_SLOT`, `RELATIVE`, the TLS types and `IRELATIVE` are numbered on it (glibc's
/// `elf/elf.h`); every other type is `symbolic`.
struct RelocationTypes {
    var none: [UInt32] = [0]
    var copy: [UInt32]
    var plt: [UInt32]
    var relative: [UInt32]
    var tls: [ClosedRange<UInt32>]
    var irelative: [UInt32]

    func relocationClass(_ type: UInt32) -> RelocationClass {
        if none.contains(type) { return .none }
        if copy.contains(type) { return .copy }
        if plt.contains(type) { return .plt }
        if relative.contains(type) { return .relative }
        if tls.contains(where: { $0.contains(type) }) { return .tls }
        if irelative.contains(type) { return .irelative }
        return .symbolic
    }

    /// TLS: DTPMOD64 DTPOFF64 TPOFF64 DTPOFF32 TPOFF32 TLSDESC; RELATIVE and RELATIVE64.
    static let x86_64 = RelocationTypes(
        copy: [5], plt: [7], relative: [8, 38], tls: [16...18, 21...21, 23...23, 36...36], irelative: [37])
    static let i386 = RelocationTypes(
        copy: [5], plt: [7], relative: [8], tls: [14...19, 32...37, 41...41], irelative: [42])
    /// 256 is R_AARCH64_NONE's other number; TLS: DTPMOD DTPREL TPREL TLSDESC.
    static let aarch64 = RelocationTypes(
        none: [0, 256], copy: [1024], plt: [1026], relative: [1027], tls: [1028...1031], irelative: [1032])
    /// TLS: TLS_DESC TLS_DTPMOD32 TLS_DTPOFF32 TLS_TPOFF32.
    static let arm = RelocationTypes(
        copy: [20], plt: [22], relative: [23], tls: [13...13, 17...19], irelative: [160])
    /// TLS: DTPMOD32/64 DTPREL32/64 TPREL32/64 TLSDESC.
    static let riscv = RelocationTypes(copy: [4], plt: [5], relative: [3], tls: [6...12], irelative: [58])
    /// TLS: R_PPC64_TLS .. TPREL16_HIGHESTA, DTPMOD64, TPREL64, DTPREL64.
    static let ppc = RelocationTypes(copy: [19], plt: [21], relative: [22], tls: [67...112], irelative: [248])
    /// TLS: TLS_LOAD .. TLS_TPOFF.
    static let s390 = RelocationTypes(copy: [9], plt: [11], relative: [12], tls: [37...56], irelative: [61])
    /// No RELATIVE type (R_MIPS_REL32 against symbol 0 is one); TLS: DTPMOD32 DTPREL32 DTPMOD64
    /// DTPREL64 TPREL32 TPREL64.
    static let mips = RelocationTypes(
        copy: [126], plt: [127], relative: [], tls: [38...41, 47...48], irelative: [])
    /// TLS: TLS_DTPMOD32/64, TLS_DTPOFF32/64, TLS_TPOFF32/64; IRELATIVE: JMP_IREL and IRELATIVE.
    static let sparc = RelocationTypes(
        copy: [19], plt: [21], relative: [22], tls: [74...79], irelative: [248, 249])
    /// TLS: TLS_DTPMOD32/64, DTPREL32/64, TPREL32/64, TLS_DESC32/64.
    static let loongarch = RelocationTypes(
        copy: [4], plt: [5], relative: [3], tls: [6...11, 13...14], irelative: [12])
}
