/// `e_machine`, with the C name (`EM_X86_64`) as description.
public struct ELFMachine: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let i386 = ELFMachine(rawValue: 3)
    public static let mips = ELFMachine(rawValue: 8)
    public static let ppc = ELFMachine(rawValue: 20)
    public static let ppc64 = ELFMachine(rawValue: 21)
    public static let s390 = ELFMachine(rawValue: 22)
    public static let arm = ELFMachine(rawValue: 40)
    public static let sparcv9 = ELFMachine(rawValue: 43)
    public static let sparc = ELFMachine(rawValue: 2)
    public static let sparc32plus = ELFMachine(rawValue: 18)
    public static let x86_64 = ELFMachine(rawValue: 62)
    public static let aarch64 = ELFMachine(rawValue: 183)
    public static let riscv = ELFMachine(rawValue: 243)
    public static let loongarch = ELFMachine(rawValue: 258)

    private static let names: [UInt16: String] = [
        0: "EM_NONE", 2: "EM_SPARC", 3: "EM_386", 8: "EM_MIPS", 20: "EM_PPC", 21: "EM_PPC64",
        22: "EM_S390", 40: "EM_ARM", 42: "EM_SH", 43: "EM_SPARCV9", 50: "EM_IA_64",
        62: "EM_X86_64", 183: "EM_AARCH64", 243: "EM_RISCV", 247: "EM_BPF", 258: "EM_LOONGARCH",
    ]

    public var description: String { Self.names[rawValue] ?? "EM_\(rawValue)" }

    /// A short human name: "x86-64", "AArch64".
    public var displayName: String {
        switch rawValue {
        case 3: "i386"
        case 8: "MIPS"
        case 20: "PowerPC"
        case 21: "PowerPC64"
        case 22: "S/390"
        case 40: "ARM"
        case 43: "SPARC V9"
        case 62: "x86-64"
        case 183: "AArch64"
        case 243: "RISC-V"
        case 258: "LoongArch"
        default: description
        }
    }
}

/// `d_tag` of a dynamic entry, with the C name as description.
public struct DynamicTag: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    init(_ raw: Int64) { self.rawValue = raw }

    public static let null = DynamicTag(0)
    public static let needed = DynamicTag(1)
    public static let pltRelSize = DynamicTag(2)
    public static let hash = DynamicTag(4)
    public static let strtab = DynamicTag(5)
    public static let symtab = DynamicTag(6)
    public static let rela = DynamicTag(7)
    public static let relaSize = DynamicTag(8)
    public static let strSize = DynamicTag(10)
    public static let initFunction = DynamicTag(12)
    public static let finiFunction = DynamicTag(13)
    public static let soname = DynamicTag(14)
    public static let rpath = DynamicTag(15)
    public static let symbolic = DynamicTag(16)
    public static let rel = DynamicTag(17)
    public static let relSize = DynamicTag(18)
    public static let pltRel = DynamicTag(20)
    public static let textRel = DynamicTag(22)
    public static let jmpRel = DynamicTag(23)
    public static let bindNow = DynamicTag(24)
    public static let initArray = DynamicTag(25)
    public static let finiArray = DynamicTag(26)
    public static let initArraySize = DynamicTag(27)
    public static let finiArraySize = DynamicTag(28)
    public static let runpath = DynamicTag(29)
    public static let flags = DynamicTag(30)
    public static let preinitArray = DynamicTag(32)
    public static let preinitArraySize = DynamicTag(33)
    public static let relrSize = DynamicTag(35)
    public static let relr = DynamicTag(36)
    public static let gnuHash = DynamicTag(0x6fff_fef5)
    public static let versym = DynamicTag(0x6fff_fff0)
    public static let flags1 = DynamicTag(0x6fff_fffb)
    public static let verdef = DynamicTag(0x6fff_fffc)
    public static let verneed = DynamicTag(0x6fff_fffe)

    private static let names: [Int64: String] = [
        0: "DT_NULL", 1: "DT_NEEDED", 2: "DT_PLTRELSZ", 3: "DT_PLTGOT", 4: "DT_HASH",
        5: "DT_STRTAB", 6: "DT_SYMTAB", 7: "DT_RELA", 8: "DT_RELASZ", 9: "DT_RELAENT",
        10: "DT_STRSZ", 11: "DT_SYMENT", 12: "DT_INIT", 13: "DT_FINI", 14: "DT_SONAME",
        15: "DT_RPATH", 16: "DT_SYMBOLIC", 17: "DT_REL", 18: "DT_RELSZ", 19: "DT_RELENT",
        20: "DT_PLTREL", 21: "DT_DEBUG", 22: "DT_TEXTREL", 23: "DT_JMPREL", 24: "DT_BIND_NOW",
        25: "DT_INIT_ARRAY", 26: "DT_FINI_ARRAY", 27: "DT_INIT_ARRAYSZ", 28: "DT_FINI_ARRAYSZ",
        29: "DT_RUNPATH", 30: "DT_FLAGS", 32: "DT_PREINIT_ARRAY", 33: "DT_PREINIT_ARRAYSZ",
        35: "DT_RELRSZ", 36: "DT_RELR", 37: "DT_RELRENT",
        0x6fff_fef5: "DT_GNU_HASH", 0x6fff_fff0: "DT_VERSYM", 0x6fff_fff9: "DT_RELACOUNT",
        0x6fff_fffa: "DT_RELCOUNT", 0x6fff_fffb: "DT_FLAGS_1", 0x6fff_fffc: "DT_VERDEF",
        0x6fff_fffd: "DT_VERDEFNUM", 0x6fff_fffe: "DT_VERNEED", 0x6fff_ffff: "DT_VERNEEDNUM",
    ]

    public var description: String {
        Self.names[rawValue] ?? "DT_0x\(String(UInt64(bitPattern: rawValue), radix: 16))"
    }
}

/// `sh_type`, with the C name as description.
public struct SectionType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    init(_ raw: UInt32) { self.rawValue = raw }

    public static let null = SectionType(0)
    public static let progbits = SectionType(1)
    public static let symtab = SectionType(2)
    public static let strtab = SectionType(3)
    public static let rela = SectionType(4)
    public static let hash = SectionType(5)
    public static let dynamic = SectionType(6)
    public static let note = SectionType(7)
    public static let nobits = SectionType(8)
    public static let rel = SectionType(9)
    public static let dynsym = SectionType(11)
    public static let initArray = SectionType(14)
    public static let finiArray = SectionType(15)
    public static let preinitArray = SectionType(16)
    public static let relr = SectionType(19)
    public static let gnuHash = SectionType(0x6fff_fff6)
    public static let gnuVerdef = SectionType(0x6fff_fffd)
    public static let gnuVerneed = SectionType(0x6fff_fffe)
    public static let gnuVersym = SectionType(0x6fff_ffff)

    private static let names: [UInt32: String] = [
        0: "SHT_NULL", 1: "SHT_PROGBITS", 2: "SHT_SYMTAB", 3: "SHT_STRTAB", 4: "SHT_RELA",
        5: "SHT_HASH", 6: "SHT_DYNAMIC", 7: "SHT_NOTE", 8: "SHT_NOBITS", 9: "SHT_REL",
        11: "SHT_DYNSYM", 14: "SHT_INIT_ARRAY", 15: "SHT_FINI_ARRAY", 16: "SHT_PREINIT_ARRAY",
        19: "SHT_RELR", 0x6fff_fff6: "SHT_GNU_HASH", 0x6fff_fffd: "SHT_GNU_verdef",
        0x6fff_fffe: "SHT_GNU_verneed", 0x6fff_ffff: "SHT_GNU_versym",
    ]

    public var description: String { Self.names[rawValue] ?? "SHT_0x\(String(rawValue, radix: 16))" }
}
